// Generated bad input for every route of the OpenAPI document, and the check each answer must pass. Used by the
// fuzz suite (api.fuzz.ts, thousands of cases) and by the regression replay in the default suite.
import fc from 'fast-check';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import type { RawAnswer } from '../support/raw-http.ts';
import { MAX_BTC } from '../../src/money/amount-bounds.ts';
import { isIso4217, minorUnits } from '../../src/money/currencies.ts';
import { addDecimals, multiplyDecimals } from '../../src/money/decimal.ts';
import { badDescriptors } from './bad-descriptors.ts';

/** One request, as bytes on the wire would say it; `{{name}}` placeholders are filled from the fixture. */
export interface BadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What was made wrong, for the report. */
  why: string;
  /**
   * Set when the body, though generated as bad, is valid by the route's documented schema (Greenfield ignores
   * unknown fields and takes null for its options): such a request may be accepted (2xx, and then may store).
   */
  schemaValid?: true;
  /**
   * Set when the request must be refused even though its body matches the documented schema: an amount beyond the
   * bound (src/money/amount-bounds.ts) is a valid JSON number or decimal string, and still never accepted.
   */
  mustRefuse?: true;
  /** The wallet API code the refusal must carry (a near-valid descriptor in add_pub's `pub`: 102). */
  code?: string;
}

/** A JSON schema as the OpenAPI document gives it (the parts read here). */
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  maxLength?: number;
  additionalProperties?: boolean;
  nullable?: boolean;
}

/** A route taken from the OpenAPI document. */
export interface Route {
  method: string;
  /** Fastify form: /balance/:address */
  path: string;
  params: string[];
  /** Names of its query parameters. */
  query: string[];
  body: Schema | null;
  /** The other methods the document has at the same path (a "wrong method" case must not be one of them). */
  siblings: string[];
  tags: string[];
}

type OpenApiDoc = { paths: Record<string, Record<string, { tags?: string[]; parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema: Schema }> } }>> };

/** Every tag of the OpenAPI document's operations (the fuzz suite covers them all). */
export function tagsOf(doc: OpenApiDoc): string[] {
  return [...new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? ['(untagged)'])))].sort();
}

/** Every route of the OpenAPI document, whatever its tag. */
export function routesOf(doc: OpenApiDoc): Route[] {
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      routes.push({
        method: method.toUpperCase(),
        path: path.replace(/\{([^}]+)\}/g, ':$1'),
        params: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        siblings: Object.keys(ops).map((m) => m.toUpperCase()),
        tags: op.tags ?? [],
      });
    }
  }
  return routes;
}

// The document's schemas are OpenAPI 3.0 (`nullable`); Ajv reads that keyword natively.
const ajv = new Ajv({ strict: false, allErrors: false, logger: false });
// A format Ajv does not know would be ignored (lenient); the one the document uses is checked, roughly as the route does.
ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
const validators = new WeakMap<Schema, (data: unknown) => boolean>();
/** Whether a body text is valid JSON of the route's documented schema. */
function validBySchema(schema: Schema, text: string | undefined): boolean {
  if (text === undefined) return false;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  let check = validators.get(schema);
  if (!check) {
    const compiled = ajv.compile(schema);
    check = (d: unknown) => compiled(d) as boolean;
    validators.set(schema, check);
  }
  return check(data);
}

/** Valid example values of the fixture, by route and by path parameter name. */
export interface Fixture {
  /** A valid body per "METHOD path"; routes without one get a body built from their schema. */
  bodies: Record<string, Record<string, unknown>>;
  /** Extra headers per "METHOD path" (the bearer token of operation 26). */
  headers: Record<string, Record<string, string>>;
  /** A valid value per path parameter name. */
  params: Record<string, string>;
  /** A valid value per query parameter name (the withdrawal quote's merchant and key). */
  query: Record<string, string>;
  /** Price of 1 BTC per fiat code the target runs with, to aim amounts just past 21,000,000 BTC. */
  rates: Record<string, string>;
  /** set_addr's body fields carrying an order payload sealed to the fixture wallet, with this order amount (in USD). */
  sealedOrder?: (orderAmount: string) => Record<string, string>;
}

const weirdText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 8 }),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e308', '-0', '0x10', '１２３', '\u202e', '\ufeff', '😀', 'null', '"', '\\'),
);

/** A JSON value that is certainly not of the schema's type. */
function wrongTypeValue(type: string | undefined): fc.Arbitrary<unknown> {
  const deep = fc.integer({ min: 50, max: 400 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);
  const common = [fc.constant(null), deep, fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 })];
  switch (type) {
    case 'string':
      return fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(1e308), fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 2 }), ...common);
    case 'integer':
      return fc.oneof(fc.constantFrom('0x10', '16', '1e3', 'NaN', 'Infinity', ''), weirdText, fc.constant(16.5), fc.boolean(), fc.array(fc.integer(), { minLength: 1, maxLength: 2 }), ...common);
    case 'number':
      return fc.oneof(fc.constantFrom('10', 'NaN', '1e308', ''), weirdText, fc.boolean(), fc.array(fc.integer(), { minLength: 1, maxLength: 2 }), ...common);
    case 'object':
      return fc.oneof(weirdText, fc.integer(), fc.boolean(), fc.array(fc.integer(), { maxLength: 2 }), fc.constant(null), deep);
    default:
      return fc.oneof(...common);
  }
}

function exampleOf(schema: Schema): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [];
  if (schema.type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, exampleOf(s)]));
  return 'x';
}

const key = (r: Route) => `${r.method} ${r.path}`;

/** A body or query field holding money: `amount`, `order_amount`, `refund_amount`. */
const AMOUNT_FIELD = /(^|_)amount$/;

/**
 * Amount texts beyond the one bound (src/money/amount-bounds.ts) in `currency`, at the fixture's rates: huge
 * integers and decimals, a satoshi or a minor unit past 21,000,000 BTC, negatives, more decimals than any face
 * takes. Every one must be refused, as a string and as a JSON number.
 */
export function outOfRangeAmounts(currency: string, rates: Record<string, string>): string[] {
  const c = currency.toUpperCase();
  const common = [`1${'0'.repeat(17)}`, `1${'0'.repeat(30)}.5`, '9'.repeat(40), '-1', '-0.01', `-1${'0'.repeat(16)}`, `0.${'0'.repeat(40)}1`, `1.${'1'.repeat(19)}`];
  if (c === 'BTC') return [...common, `${MAX_BTC}.00000001`, '21000001', '2100000000000000', '0.000000001'];
  if (c === 'SATS') return [...common, '2100000000000001', '99999999999999999'];
  const rate = rates[c];
  const m = isIso4217(c) ? minorUnits(c) : 2;
  const minor = m === 0 ? '1' : `0.${'0'.repeat(m - 1)}1`;
  return [...common, '1000000000000000', '9999999999999999.99', ...(rate ? [addDecimals(multiplyDecimals(MAX_BTC, rate), minor)] : [])];
}

/** JSON number literals beyond the bound in any currency, or beyond what a number literal may be (1e401). */
const OUT_OF_RANGE_LITERALS = ['1e30', '1E+16', '2.2e15', '-1e30', '1e400', '1e401', '1e-30', '1e99999'];

/** One out-of-range amount as a JSON literal: the decimal as a string or as a number, or an exponent form. */
function amountLiteral(currency: string, rates: Record<string, string>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...outOfRangeAmounts(currency, rates)).chain((v) => fc.constantFrom(JSON.stringify(v), v)),
    fc.constantFrom(...OUT_OF_RANGE_LITERALS),
  );
}

/** A body with `field` set to a raw JSON literal (an exponent form must reach the server as written). */
function withLiteral(body: Record<string, unknown>, field: string, literal: string): string {
  const mark = '\u0000amount\u0000';
  return JSON.stringify({ ...body, [field]: mark }).replace(JSON.stringify(mark), literal);
}

/** Fills the path's parameters with the fixture's valid values, one of them replaced by `bad` when given. */
function pathOf(route: Route, fixture: Fixture, bad?: { name: string; raw: string }): string {
  return route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) =>
    bad && bad.name === name ? bad.raw : encodeURIComponent(fixture.params[name] ?? 'x'),
  );
}

/** Path parameter values that no route may accept: broken percent-encoding, overlong, spaces, control characters. */
const badParam = fc.oneof(
  fc.constantFrom('%zz', '%', '%ff%fe', '%c3%28', 'a'.repeat(600), '%00', '..%2f..%2fetc%2fpasswd'),
  weirdText.filter((s) => s.length > 0).map((s) => encodeURIComponent(` ${s}`)),
  fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 4 }).map(encodeURIComponent),
);

/** Every kind of bad request for one route. */
export function badRequests(route: Route, fixture: Fixture): fc.Arbitrary<BadRequest> {
  const headers = { ...(fixture.headers[key(route)] ?? {}) };
  const kinds: fc.Arbitrary<BadRequest>[] = [];
  const oauth = route.path.startsWith('/oauth/');

  if (route.params.length > 0) {
    kinds.push(
      fc.record({ name: fc.constantFrom(...route.params), raw: badParam }).map((bad) => ({
        method: route.method,
        path: pathOf(route, fixture, bad),
        headers,
        why: `path parameter ${bad.name} = ${bad.raw.slice(0, 40)}`,
      })),
    );
  }
  // Amounts beyond the bound in a path (exchange, op 6) or query (withdrawal quote), in the currency the route prices in.
  if (route.params.includes('amount')) {
    const currency = fixture.params.from ?? 'USD';
    kinds.push(
      fc.constantFrom(...outOfRangeAmounts(currency, fixture.rates), ...OUT_OF_RANGE_LITERALS).map((v) => ({
        method: route.method,
        path: pathOf(route, fixture, { name: 'amount', raw: encodeURIComponent(v) }),
        headers,
        why: `amount out of range: path amount = ${v.slice(0, 40)} ${currency}`,
        mustRefuse: true as const,
      })),
    );
  }
  const amountQuery = route.query.filter((q) => AMOUNT_FIELD.test(q));
  if (amountQuery.length > 0) {
    kinds.push(
      fc.record({ name: fc.constantFrom(...amountQuery), v: fc.constantFrom(...outOfRangeAmounts('USD', fixture.rates)) }).map(({ name, v }) => {
        const query = new URLSearchParams(route.query.filter((q) => q !== name && fixture.query[q] !== undefined).map((q) => [q, fixture.query[q]!] as [string, string]));
        query.set(name, v);
        return { method: route.method, path: `${pathOf(route, fixture)}?${query.toString()}`, headers, why: `amount out of range: query ${name} = ${v.slice(0, 40)}`, mustRefuse: true as const };
      }),
    );
  }
  // A method the route does not have, or no method HTTP knows.
  kinds.push(
    fc.constantFrom('PUT', 'DELETE', 'PATCH', 'FROB', 'POST', 'GET')
      .filter((m) => m !== route.method && !route.siblings.includes(m))
      .map((method) => ({ method, path: pathOf(route, fixture), headers, why: `method ${method}` })),
  );

  const schema = route.body ?? (oauth ? { type: 'object', properties: {} } : null);
  if (schema) {
    const base: Record<string, unknown> = fixture.bodies[key(route)] ?? (exampleOf(schema) as Record<string, unknown>);
    const props = Object.entries(schema.properties ?? {});
    const json = (body: unknown, why: string, extra: Record<string, string> = {}): BadRequest => ({
      method: route.method,
      path: pathOf(route, fixture),
      headers: { 'content-type': 'application/json', ...headers, ...extra },
      body: JSON.stringify(body),
      why,
    });
    // Noise in the other fields: strange but well-typed strings, which must not rescue a bad request.
    const withNoise = (body: Record<string, unknown>, except: string) =>
      fc.option(fc.record({ field: fc.constantFrom(...Object.keys(base).filter((k) => k !== except && typeof base[k] === 'string'), '-'), text: weirdText }), { nil: undefined }).map(
        (noise) => (noise && noise.field !== '-' ? { ...body, [noise.field]: noise.text } : body),
      );
    if (props.length > 0) {
      kinds.push(
        fc.record({ field: fc.constantFrom(...props.map(([k]) => k)), value: fc.constant(0) }).chain(({ field }) =>
          wrongTypeValue(schema.properties![field]!.type).chain((value) =>
            withNoise({ ...base, [field]: value }, field).map((body) => json(body, `${field} of the wrong type: ${JSON.stringify(value)?.slice(0, 60)}`)),
          ),
        ),
      );
    }
    // Every money field of the body, beyond the bound: in the body's currency, and in BTC (and SATS) where the body
    // names its currency, so a satoshi past 21,000,000 BTC is tried as well as a fiat amount worth more than that.
    const amountFields = props.map(([k]) => k).filter((k) => AMOUNT_FIELD.test(k));
    if (amountFields.length > 0) {
      const currencyField = ['currency', 'order_currency'].find((f) => typeof base[f] === 'string');
      const baseCurrency = currencyField ? String(base[currencyField]) : /refund/.test(route.path) ? 'BTC' : 'USD';
      const currencies = currencyField === 'currency' ? [baseCurrency, 'BTC', 'SATS'] : [baseCurrency];
      kinds.push(
        fc.record({ field: fc.constantFrom(...amountFields), currency: fc.constantFrom(...currencies) }).chain(({ field, currency }) =>
          amountLiteral(currency, fixture.rates).map((literal) => {
            const body = currencyField ? { ...base, [currencyField]: currency } : base;
            return { ...json(null, `amount out of range: ${field} = ${literal.slice(0, 40)} ${currency}`), body: withLiteral(body, field, literal), mustRefuse: true as const };
          }),
        ),
      );
    }
    // The payment request's cart: every item amount, shipping, discount and tax are amounts too.
    if (props.some(([k]) => k === 'cart')) {
      kinds.push(
        fc.record({ field: fc.constantFrom('amount', 'shipping_cost', 'shipping_discount', 'tax_cost'), literal: amountLiteral('USD', fixture.rates) }).map(({ field, literal }) => {
          const at = (name: string, otherwise: string) => (field === name ? literal : otherwise);
          const cart = `{"items":[{"amount":${at('amount', '1')},"quantity":1,"label":"item","sku":"sku-1"}],"shipping_cost":${at('shipping_cost', '0')},"shipping_discount":${at('shipping_discount', '0')},"tax_cost":${at('tax_cost', '0')}}`;
          return { ...json(null, `amount out of range: cart ${field} = ${literal.slice(0, 40)}`), body: withLiteral(base, 'cart', cart), mustRefuse: true as const };
        }),
      );
    }
    // set_addr's order amount travels in the sealed payload; the fixture seals it to the wallet's key.
    if (key(route) === 'POST /set_addr' && fixture.sealedOrder) {
      const seal = fixture.sealedOrder;
      kinds.push(
        fc.constantFrom(...outOfRangeAmounts('USD', fixture.rates)).map((v) => ({ ...json({ ...base, ...seal(v) }, `amount out of range: payload order_amount = ${v.slice(0, 40)}`), mustRefuse: true as const })),
      );
    }
    // add_pub's key as a near-valid output descriptor: refused with 102, nothing stored. Added several times so that
    // about a third of add_pub's cases are descriptors: one kind among a dozen reached the server 0-1 times in 2,500
    // cases over every route.
    if (key(route) === 'POST /add_pub') {
      const descriptor = badDescriptors.map(({ text, why }) => ({ ...json({ ...base, pub: text }, `pub: ${why}: ${text.slice(0, 80)}`), mustRefuse: true as const, code: '102' }));
      for (let i = 0; i < 6; i++) kinds.push(descriptor);
    }
    for (const field of schema.required ?? []) {
      const { [field]: _gone, ...rest } = base;
      kinds.push(withNoise(rest, field).map((body) => json(body, `required ${field} missing`)));
    }
    if (!oauth) {
      // Under Greenfield an unknown field is ignored (additionalProperties true): then the case may be valid.
      kinds.push(
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(schema.properties ?? {})[k] && k !== '__proto__').map((k) => json({ ...base, [k]: 'x' }, `unknown field ${JSON.stringify(k)}`)),
      );
    }
    const long = props.filter(([, s]) => s.maxLength !== undefined && s.maxLength < 20_000);
    if (long.length > 0) {
      kinds.push(fc.constantFrom(...long).map(([k, s]) => json({ ...base, [k]: 'a'.repeat(s.maxLength! + 1) }, `${k} over ${s.maxLength} characters`)));
    }
    kinds.push(
      fc
        .oneof(
          fc.constant<unknown>([base]),
          weirdText as fc.Arbitrary<unknown>,
          fc.integer() as fc.Arbitrary<unknown>,
          fc.constant<unknown>(null),
          fc.integer({ min: 100, max: 2000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown),
        )
        .map((body) => json(body, `a body that is not an object: ${JSON.stringify(body).slice(0, 40)}`)),
    );
    const text = JSON.stringify(base);
    kinds.push(
      fc
        .oneof(
          fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
          fc.constantFrom(`${text}x`, `${text},{}`, text.replace(/"/g, "'"), text.replace(/^\{/, '{NaN:1,'), text.replace(/:"/, ':NaN,"'), '{"a":1e99999}'),
        )
        .map((raw) => ({ ...json(null, `malformed JSON: ${raw.slice(0, 40)}`), body: raw })),
    );
    if (props.length > 0) {
      // Duplicate keys: the good value first, a wrong one last (JSON.parse keeps the last).
      kinds.push(
        fc.constantFrom(...props.map(([k]) => k)).chain((field) =>
          wrongTypeValue(schema.properties![field]!.type).map((value) => {
            const rest = JSON.stringify({ ...base, [field]: value }).slice(1);
            const raw = `{${JSON.stringify(field)}:${JSON.stringify(base[field] ?? 'x')},${rest}`;
            return { ...json(null, `duplicate key ${field}`), body: raw };
          }),
        ),
      );
    }
    kinds.push(
      fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', ...(oauth ? [] : ['application/x-www-form-urlencoded'])).map(
        (type) => {
          const body = type.includes('urlencoded') ? new URLSearchParams(Object.entries(base).map(([k, v]) => [k, String(v)] as [string, string])).toString() : text;
          return { ...json(null, `content type ${type}`, { 'content-type': type }), body };
        },
      ),
    );
  }
  // A body that the documented schema accepts (only sent with JSON's content type) may be a valid request.
  return fc.oneof(...kinds).map((req) =>
    schema && req.mustRefuse !== true && req.method === route.method && req.path === pathOf(route, fixture) && (req.headers['content-type'] ?? '') === 'application/json' && validBySchema(schema, req.body)
      ? { ...req, schemaValid: true as const }
      : req,
  );
}

/** The error shape of a path: Greenfield's under its prefixes, pages (HTML or the envelope), problem details, OAuth, envelope. */
export function shapeOf(path: string): 'greenfield' | 'page' | 'problem' | 'oauth' | 'envelope' {
  // As src/http/error-faces.ts: everything under /api/v1 but payment API v1's /api/v1/payment… is Greenfield's.
  if (/^\/api\/v1(\/(?!payment(\/|\?|$))|\?|$)/.test(path)) return 'greenfield';
  if (/^\/(pay|form|refund|request|button|pos|console|i)(\/|$|\?)/.test(path) || path.startsWith('/api-keys/authorize')) return 'page';
  if (path.startsWith('/api/')) return 'problem';
  if (path.startsWith('/oauth/')) return 'oauth';
  return 'envelope';
}

/** Whether an answer accepted the request: allowed only for a case whose body the schema accepts. */
export function acceptedValid(req: BadRequest, res: RawAnswer): boolean {
  return req.schemaValid === true && res.status >= 200 && res.status < 300;
}

/** The shape an error must have where it landed: problem details under /api/, RFC 6749 under /oauth/, else the envelope. */
export function checkAnswer(req: BadRequest, res: RawAnswer): void {
  expect(res.status, `status of ${req.why}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (acceptedValid(req, res)) return;
  expect(res.status, `status of ${req.why}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `status of ${req.why}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  const type = res.headers['content-type'] ?? '';
  const shape = shapeOf(req.path);
  if (shape === 'page' && /^text\/html/.test(type)) return;
  const body = JSON.parse(res.body) as Record<string, unknown>;
  if (shape === 'greenfield') {
    expect(type, `content type of ${req.why}`).toMatch(/^application\/json/);
    if (res.status === 422) {
      expect(Array.isArray(body), `422 of ${req.why} is an array: ${res.body.slice(0, 300)}`).toBe(true);
      expect((body as unknown as unknown[]).length).toBeGreaterThan(0);
      for (const e of body as unknown as Record<string, unknown>[]) expect(Object.keys(e).sort(), res.body.slice(0, 300)).toEqual(['message', 'path']);
    } else {
      expect(Object.keys(body).sort(), `${req.why}: ${res.body.slice(0, 300)}`).toEqual(['code', 'message']);
      expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      expect([400, 401, 403, 404, 405, 413, 415, 431], `status of ${req.why}`).toContain(res.status);
    }
  } else if (shape === 'problem') {
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: res.status });
  } else if (shape === 'oauth') {
    expect(type).toMatch(/^application\/json/);
    expect(body).toMatchObject({ error: expect.any(String), error_description: expect.any(String) });
  } else {
    expect(type).toMatch(/^application\/json/);
    const codeKey = 'return' in body ? 'return' : 'result';
    expect(Object.keys(body).sort()).toEqual([codeKey, 'status'].sort());
    expect(body[codeKey]).toMatch(/^[1-9]\d{2}$/);
    if (req.code) expect(body[codeKey], `code of ${req.why}: ${res.body.slice(0, 300)}`).toBe(req.code);
    // DESIGN.md section 7: the HTTP status of each wallet API code.
    const http: Record<string, number> = { '301': 404, '999': 404, '302': 401, '303': 401, '304': 401, '305': 401, '306': 401, '307': 401 };
    expect(res.status, `HTTP status of code ${String(body[codeKey])}`).toBe(http[String(body[codeKey])] ?? 400);
  }
}

/** Replaces `{{name}}` placeholders (fixture values) in a stored regression case. */
export function fillPlaceholders(req: BadRequest, values: Record<string, string>): BadRequest {
  const fill = (s: string) => s.replace(/\{\{([a-z_]+)\}\}/g, (_m, k: string) => values[k] ?? `{{${k}}}`);
  return {
    ...req,
    path: fill(req.path),
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, fill(v)])),
    ...(req.body === undefined ? {} : { body: fill(req.body) }),
  };
}

/** The inverse: a failing case with the fixture's values turned back into placeholders, to be stored. */
export function withPlaceholders(req: BadRequest, values: Record<string, string>): BadRequest {
  const entries = Object.entries(values).sort((a, b) => b[1].length - a[1].length);
  const strip = (s: string) => entries.reduce((acc, [k, v]) => acc.split(v).join(`{{${k}}}`), s);
  return {
    ...req,
    path: strip(req.path),
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, strip(v)])),
    ...(req.body === undefined ? {} : { body: strip(req.body) }),
  };
}
