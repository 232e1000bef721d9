// What a schema refusal says, for every face: each validator keyword (Ajv's, and the strict compiler's, which speaks
// the same keywords) in plain words that say what the field must be. The validators' own messages ("must NOT have
// additional properties", "must match pattern") name neither the field nor what to send; no face shows them.

/** A validation failure as Fastify reports it (Ajv's error object, or the strict compiler's in the same shape). */
export interface SchemaFailure {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
  schemaPath?: string;
}

/**
 * Ajv reports a value that fits no branch of a union once per branch and once for the union. A client is told one
 * thing per field: the types the union takes when every branch refused the type, else what the branch of the right
 * type wanted (a string that is no decimal hears about the decimal, not that it could have been a number).
 */
export function withoutUnionBranches(failures: readonly SchemaFailure[]): SchemaFailure[] {
  const unions = failures.filter((f) => (f.keyword === 'anyOf' || f.keyword === 'oneOf') && f.schemaPath !== undefined);
  if (unions.length === 0) return [...failures];
  const unionOf = (f: SchemaFailure) => unions.find((u) => u !== f && u.instancePath === f.instancePath && f.schemaPath?.startsWith(`${u.schemaPath}/`));
  const out: SchemaFailure[] = [];
  for (const f of failures) {
    if (unionOf(f)) continue;
    if (!unions.includes(f)) {
      out.push(f);
      continue;
    }
    const branches = failures.filter((b) => unionOf(b) === f);
    const others = branches.filter((b) => b.keyword !== 'type');
    if (others.length > 0) out.push(...others);
    else if (branches.length > 0) out.push({ ...f, keyword: 'type', params: { type: branches.flatMap((b) => b.params?.type ?? []) } });
    else out.push(f);
  }
  return out;
}

/**
 * Fields a client gives to one operation that belong to another part of the interface: `METHOD /path` → field →
 * where it goes. The refusal then says where to put it instead of only that it is unknown.
 */
const BELONGS_ELSEWHERE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'POST /set_addr': {
    order_amount: 'the order amount goes in the encrypted payload (public_key_shared and payload), as its order_amount',
    order_currency: 'the order currency goes in the encrypted payload, as its local_currency, or in local_currency',
    api_key: 'set_addr takes the wallet\'s api_id',
  },
  'POST /add_pub': {
    order_amount: 'amounts belong to an order: POST /set_addr (in its encrypted payload), POST /payment_form or the payment API',
  },
};

/** Patterns of the interface's schemas in words; any other is shown as it is. */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}$': 'must be a date like 2024-01-31',
  '^[1-9][0-9]{0,6}$': 'must be a whole number from 1 to 9999999, written in digits',
  '^[1-9][0-9]{0,17}$': 'must be a positive whole number, written in digits',
  '^[0-9]{1,4}$': 'must be a whole number of at most 4 digits',
  '^[A-Za-z]+$': 'must be letters only',
  '^[a-z0-9_]{1,64}$': 'must be 1 to 64 lowercase letters, digits or underscores',
  '^\\+[1-9]\\d{1,14}$': 'must be in E.164 format, like +14155550123',
  '^(0|[1-9][0-9]*)(\\.[0-9]+)?$': 'must be a decimal number like 49.90',
  '^(0|[1-9]\\d*)(\\.\\d+)?$': 'must be a decimal number like 49.90',
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  object: 'a JSON object',
  array: 'a list (a JSON array)',
  boolean: 'true or false',
  null: 'null',
};

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: 'an e-mail address',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  'date-time': 'a date and time like 2024-01-31T12:00:00Z',
  date: 'a date like 2024-01-31',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

const show = (v: unknown) => JSON.stringify(v);
const plural = (n: unknown, one: string) => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

/** The field a failure names: its path as `a.b`, with the missing or unknown property, else the part of the request. */
export function fieldOfFailure(v: SchemaFailure, context?: string): string {
  let path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const named = v.keyword === 'required' ? v.params?.missingProperty : v.keyword === 'additionalProperties' ? v.params?.additionalProperty : undefined;
  if (typeof named === 'string') path = path ? `${path}.${named}` : named;
  return path || context || 'request';
}

/** What a failure says about its field, in plain words; `operation` (`METHOD /path`) is named for an unknown field. */
export function schemaMessage(v: SchemaFailure, field: string, operation?: string): string {
  const p = v.params ?? {};
  switch (v.keyword) {
    case 'additionalProperties': {
      const base = operation ? `is not a field of ${operation}` : 'is not a field of this operation';
      const elsewhere = operation ? BELONGS_ELSEWHERE[operation]?.[field] : undefined;
      return elsewhere ? `${base}: ${elsewhere}` : base;
    }
    case 'required':
      return 'is required';
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : String(p.type ?? '').split(',')).map((t) => TYPE_WORDS[String(t)] ?? String(t)).filter(Boolean);
      return types.length > 0 ? `must be ${types.join(' or ')}` : (v.message ?? 'has the wrong type');
    }
    case 'pattern':
      return PATTERN_WORDS[String(p.pattern)] ?? `is not in the expected form (it must match ${String(p.pattern)})`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(p.format)] ?? `in ${String(p.format)} format`}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'enum':
      return Array.isArray(p.allowedValues) ? `must be one of ${p.allowedValues.map(show).join(', ')}` : 'is not one of the accepted values';
    case 'const':
      return `must be ${show(p.allowedValue)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')}`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')}`;
    case 'minItems':
      return p.limit === 1 ? 'must not be empty' : `must have at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item')}`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'field')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'field')}`;
    case 'anyOf':
    case 'oneOf':
      return 'is none of the accepted forms';
    default:
      // A refusal written by our own hooks (no-nul.ts) is already in words.
      return v.message ?? 'is invalid';
  }
}
