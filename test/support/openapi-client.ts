// A small typed interpreter of BTCPay's OpenAPI document (the vendored fixtures/btcpay-greenfield-openapi.json),
// standing in for a client generated from it: it lists the operations, builds each call from the document (path
// template, method, required parameters, a request body generated from the schema, its examples first) and checks
// an answer against the response schema the document gives for its status. No generator dependency: the subset
// of OpenAPI 3 / JSON Schema BTCPay's documents use ($ref, allOf/oneOf/anyOf, nullable, type, enum, properties,
// required, items, additionalProperties) is interpreted here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Schema = { [key: string]: unknown };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Generation {
  commit: string;
  files: string[];
  paths: Record<string, Record<string, Schema>>;
  components: { schemas?: Record<string, Schema>; parameters?: Record<string, Schema> };
}

export interface Operation {
  generation: string;
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  parameters: { name: string; in: string; required: boolean; schema: Schema; example?: unknown }[];
  body: Schema | undefined;
  responses: Record<string, Schema>;
}

const FIXTURE = fileURLToPath(new URL('./fixtures/btcpay-greenfield-openapi.json', import.meta.url));

/**
 * Where BTCPay's server answers differently from its document, the answer its own client models
 * (BTCPayServer.Client/Models/*.cs, same commits) describe is what is checked: OnChainWalletTransactionData's
 * `long? BlockHeight`, `long Confirmations` and `Dictionary<string, LabelData> Labels` (the document says strings
 * and an array), OnChainWalletUTXOData's `Labels` likewise and `string Link` (null where no explorer is set), and
 * OnChainPaymentMethodBaseData's strings (null when the store has none: a service-held wallet shows no key),
 * PullPaymentBaseData's `TimeSpanJsonConverter.Days` BOLT11Expiration (a number of days; the document says a
 * string), PayoutData's `DateTimeToUnixTimeConverter` Date (an integer) and `JObject PaymentProof` (null until paid).
 */
const SERVER_ANSWERS: Record<string, Record<string, Schema>> = {
  OnChainWalletTransactionData: { blockHeight: { type: 'integer', nullable: true }, confirmations: { type: 'integer' }, labels: { type: 'object' } },
  OnChainWalletUTXOData: { labels: { type: 'object' }, link: { type: 'string', nullable: true } },
  PullPaymentData: { BOLT11Expiration: { type: 'number' } },
  PayoutData: { date: { type: 'integer' }, paymentProof: { type: 'object', nullable: true } },
  OnChainPaymentMethodBaseData: { derivationScheme: { type: 'string', nullable: true }, label: { type: 'string', nullable: true }, accountKeyPath: { type: 'string', nullable: true } },
};

/** The vendored document's generations ("2.x", "1.x", "storeId-less"), with the corrections above applied. */
export function loadGenerations(): Record<string, Generation> {
  const gens = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { generations: Record<string, Generation> }).generations;
  for (const gen of Object.values(gens)) {
    for (const [name, props] of Object.entries(SERVER_ANSWERS)) {
      const schema = gen.components.schemas?.[name];
      if (!schema) continue;
      Object.assign((schema.properties ??= {}) as Record<string, Schema>, props);
    }
  }
  return gens;
}

/** A `#/components/...` reference of the generation, resolved (repeatedly). */
export function deref(gen: Generation, node: Schema): Schema {
  let n = node;
  for (let i = 0; i < 20 && typeof n.$ref === 'string'; i++) {
    const [, , kind, key] = (n.$ref as string).split('/');
    const target = (gen.components as Record<string, Record<string, Schema>>)[kind!]?.[key!];
    if (!target) throw new Error(`unresolved ${n.$ref as string}`);
    n = target;
  }
  return n;
}

/** Every operation of the generation, in document order. */
export function operationsOf(name: string, gen: Generation): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(gen.paths)) {
    const shared = (item.parameters as Schema[] | undefined) ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const params = [...shared, ...((op.parameters as Schema[] | undefined) ?? [])].map((p) => deref(gen, p));
      const content = (deref(gen, (op.requestBody as Schema | undefined) ?? {}).content as Record<string, Schema> | undefined)?.['application/json'];
      ops.push({
        generation: name,
        operationId: op.operationId as string,
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters: params.map((p) => ({ name: p.name as string, in: p.in as string, required: p.required === true, schema: (p.schema as Schema) ?? {}, example: p.example })),
        body: content?.schema as Schema | undefined,
        responses: (op.responses as Record<string, Schema>) ?? {},
      });
    }
  }
  return ops;
}

/** The URL of an operation: path parameters from `values` (each must be known), required query parameters generated. */
export function urlOf(gen: Generation, op: Operation, values: Record<string, string>): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
    return encodeURIComponent(v);
  });
  const query = op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(exampleOf(gen, p.schema)))}`);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/**
 * A value conforming to the schema: its example, default or first enum value, else built from its type. Objects
 * carry their required properties only, as a generated client sends what the caller sets (the test sets the rest).
 */
export function exampleOf(gen: Generation, schema: Schema, depth = 0): Json {
  const s = deref(gen, schema);
  if (s.example !== undefined) return s.example as Json;
  if (s.default !== undefined && s.default !== null) return s.default as Json;
  if (Array.isArray(s.enum)) return s.enum[0] as Json;
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Schema[]).map((p) => exampleOf(gen, p, depth + 1));
    const merged = Object.assign({}, ...parts.filter((p) => p !== null && typeof p === 'object' && !Array.isArray(p))) as Record<string, Json>;
    return { ...merged, ...(s.properties ? (objectOf(gen, s, depth) as Record<string, Json>) : {}) };
  }
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (alternatives) return exampleOf(gen, alternatives[0]!, depth + 1);
  switch (s.type) {
    case 'string':
      return s.format === 'decimal' ? '0.001' : 'satgate';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return depth > 4 || !s.items ? [] : [exampleOf(gen, s.items as Schema, depth + 1)];
    default:
      return s.properties && depth <= 4 ? objectOf(gen, s, depth) : {};
  }
}

function objectOf(gen: Generation, s: Schema, depth: number): Json {
  const out: Record<string, Json> = {};
  const required = new Set((s.required as string[] | undefined) ?? []);
  for (const [k, v] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
    const prop = deref(gen, v);
    if (prop.readOnly === true || !required.has(k)) continue;
    out[k] = exampleOf(gen, v, depth + 1);
  }
  return out;
}

/** The response schema the document gives for a status (its own, or `default`); undefined when none. */
export function responseSchema(gen: Generation, op: Operation, status: number): Schema | undefined {
  const r = op.responses[String(status)] ?? (status === 422 ? undefined : op.responses.default);
  // BTCPay answers every 422 as ValidationProblemDetails, documented on the operation or not.
  if (!r) return status === 422 ? gen.components.schemas?.ValidationProblemDetails : undefined;
  return ((deref(gen, r).content as Record<string, Schema> | undefined)?.['application/json']?.schema as Schema | undefined) ?? undefined;
}

/** What is wrong with `value` against `schema` (empty when it conforms). */
export function validate(gen: Generation, schema: Schema, value: unknown, at = '$'): string[] {
  const s = deref(gen, schema);
  if (value === null) return s.nullable === true || s.type === undefined ? [] : [`${at}: null where ${String(s.type)} is expected`];
  const errors: string[] = [];
  if (Array.isArray(s.allOf)) for (const part of s.allOf as Schema[]) errors.push(...validate(gen, part, value, at));
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (alternatives && !alternatives.some((alt) => validate(gen, alt, value, at).length === 0)) errors.push(`${at}: matches none of the alternatives`);
  if (Array.isArray(s.enum) && !s.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  const type = s.type as string | undefined;
  const actual = Array.isArray(value) ? 'array' : typeof value;
  if (type === 'integer' ? !Number.isInteger(value) : type === 'number' ? actual !== 'number' : type !== undefined && actual !== type) {
    return [...errors, `${at}: ${actual} where ${type} is expected`];
  }
  if (type === 'string' && s.format === 'decimal' && !/^-?\d+(\.\d+)?$/.test(value as string)) errors.push(`${at}: ${JSON.stringify(value)} is not a decimal`);
  if (Array.isArray(value) && s.items) value.forEach((v, i) => errors.push(...validate(gen, s.items as Schema, v, `${at}[${i}]`)));
  if (actual === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (s.properties as Record<string, Schema> | undefined) ?? {};
    for (const name of (s.required as string[] | undefined) ?? []) if (!(name in obj)) errors.push(`${at}.${name}: missing`);
    for (const [k, v] of Object.entries(obj)) {
      // `additionalProperties: false` is not held against an answer: BTCPay's own server answers fields its
      // document leaves out (OnChainPaymentMethodData's paymentMethod, say), and clients ignore unknown fields.
      if (props[k]) errors.push(...validate(gen, props[k]!, v, `${at}.${k}`));
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') errors.push(...validate(gen, s.additionalProperties as Schema, v, `${at}.${k}`));
    }
  }
  return errors;
}
