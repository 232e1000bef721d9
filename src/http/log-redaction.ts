// What the request log must never hold in clear: tokens in paths (a refund or payment form link is the payer's
// credential, stored only hashed), secret fields in query strings, extended private keys. Each route that carries a
// secret in its path declares it (`config: { secretParams: [...] }`); the onRoute hook collects the declarations
// into the one rule both the request serializer and the last look at every log line use, and refuses at boot a
// route whose parameter is named like a secret but not declared, so a new route cannot forget it.
import type { RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Path parameters that are secrets (a token from a mailed link): logged as `[redacted]`. */
    secretParams?: readonly string[];
  }
}

/** Extended private keys (xprv, tprv, yprv, zprv, uprv, vprv and their multisig cousins) in base58. */
const PRIVATE_KEY = /\b[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{20,}/g;

/**
 * A name that names a secret. A query field so named is redacted on every URL (a key sent to a wrong path is still a
 * key); a path parameter so named must be declared in `secretParams`.
 */
const SECRET_NAME = /token|secret|passw|otp|auth|(?:^|[_-])key$|apikey|seed|mnemonic|prv/i;

/** Secret fields of request bodies, censored should a body ever be logged. */
const SECRET_FIELDS = [
  'otp',
  'token',
  'auth_token',
  'client_secret',
  'merchant_auth_key',
  'withdrawal_auth_key',
  'partner_auth_key',
  'refund_form_token',
  'form_token',
];

/** Header and body paths pino must never print. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  ...SECRET_FIELDS.map((f) => `body.${f}`),
];

const REDACTED = '[redacted]';
/** One path segment as it appears in a URL or in a log line (JSON-escaped). */
const SEGMENT = `[^/?#\\s"'\\\\]+`;
/** A query field in a URL or a log line: its name and value. */
const QUERY_FIELD = /([?&;])([^=&#\s"\\]*)=([^&#\s"\\]*)/g;

/** One secret-carrying path, cut after its last secret segment: what precedes a secret is enough to find it. */
interface SecretPath {
  /** Route segments up to the last secret one: a literal (lowercase), or null for a parameter. */
  segments: (string | null)[];
  /** Which of `segments` are secret. */
  secret: boolean[];
  /** Matches the path anywhere in a text, one capture group per segment. */
  pattern: RegExp;
}

/** The one redaction rule of an app: filled by its onRoute hook, used by its logger. */
export interface LogRedaction {
  /** The onRoute hook: collects `config.secretParams`; throws for an undeclared secret-looking parameter. */
  onRoute(route: RouteOptions): void;
  /** The URL (path and query) with every secret replaced by `[redacted]`, for the request serializer. */
  redactUrl(url: string): string;
  /** Any text (a serialized log line) with secrets in the paths and query strings it quotes redacted. */
  redactText(text: string): string;
  /** The routes that declared secret path parameters. */
  secretRoutes(): { url: string; params: readonly string[] }[];
}

/** A fresh redaction rule; install `onRoute` before any route is registered. */
export function createLogRedaction(): LogRedaction {
  const paths = new Map<string, SecretPath>();
  const routes = new Map<string, readonly string[]>();
  let combined: RegExp | null = null;

  const onRoute = (route: RouteOptions) => {
    const url = route.url;
    const declared = route.config?.secretParams ?? [];
    const params = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
    for (const name of declared) {
      if (!params.includes(name)) throw new Error(`route ${url} declares secret parameter ${name}, which it does not have`);
    }
    for (const name of params) {
      if (SECRET_NAME.test(name) && !declared.includes(name)) {
        throw new Error(`route ${url}: path parameter ${name} is named like a secret; declare it with config.secretParams (or rename it)`);
      }
    }
    if (declared.length === 0) return;
    const all = url.split('/').filter((s) => s !== '');
    const isSecret = all.map((s) => {
      const whole = /^:([A-Za-z0-9_]+)$/.exec(s);
      if (!whole && declared.some((name) => s.includes(`:${name}`))) throw new Error(`route ${url}: a secret parameter must be a whole path segment`);
      return whole !== null && declared.includes(whole[1]!);
    });
    const end = isSecret.lastIndexOf(true) + 1;
    const segments = all.slice(0, end).map((s) => (s.startsWith(':') ? null : s.toLowerCase()));
    const key = segments.map((s, i) => (isSecret[i] ? '#' : (s ?? ':'))).join('/');
    const source = segments.map((s) => `/(${s === null ? SEGMENT : escapeRegExp(s)})`).join('');
    paths.set(key, { segments, secret: isSecret.slice(0, end), pattern: new RegExp(source, 'gi') });
    routes.set(url, declared);
    combined = null;
  };

  const redactPath = (path: string): string => {
    if (paths.size === 0) return path;
    const raw = path.split('/');
    // Compared decoded and in any case: the router decodes %xx, and a 404 spelling carries the secret just as well.
    const seen = raw.map((s) => safeDecode(s).toLowerCase());
    const out = [...raw];
    for (const p of paths.values()) {
      for (let start = 0; start + p.segments.length <= raw.length; start++) {
        const fits = p.segments.every((lit, j) => (lit === null ? seen[start + j] !== '' : seen[start + j] === lit));
        if (!fits) continue;
        p.secret.forEach((secret, j) => {
          if (secret) out[start + j] = REDACTED;
        });
      }
    }
    return out.join('/');
  };

  const redactPathsInText = (text: string): string => {
    if (paths.size === 0) return text;
    combined ??= new RegExp([...paths.values()].map((p) => p.pattern.source).join('|'), 'i');
    if (!combined.test(text)) return text;
    let result = text;
    for (const p of paths.values()) {
      result = result.replace(p.pattern, (...m: string[]) => p.secret.map((secret, j) => `/${secret ? REDACTED : m[j + 1]}`).join(''));
    }
    return result;
  };

  return {
    onRoute,
    redactUrl(url) {
      const q = url.search(/[?#]/);
      const path = q < 0 ? url : url.slice(0, q);
      const rest = q < 0 ? '' : url.slice(q);
      return redactPrivateKeys(redactPath(path) + redactQuery(rest));
    },
    redactText(text) {
      return redactPrivateKeys(redactQuery(redactPathsInText(text)));
    },
    secretRoutes: () => [...routes].map(([url, params]) => ({ url, params })),
  };
}

/** Secret-named query fields (also spelled with %xx, in any case, as `name[]`) with their values redacted. */
function redactQuery(text: string): string {
  if (!text.includes('=')) return text;
  return text.replace(QUERY_FIELD, (whole, sep: string, name: string) => {
    const plain = safeDecode(name.replace(/\+/g, ' ')).replace(/\[.*$/, '');
    return SECRET_NAME.test(plain) ? `${sep}${name}=${REDACTED}` : whole;
  });
}

function redactPrivateKeys(text: string): string {
  return text.replace(PRIVATE_KEY, '[redacted-private-key]');
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    // Not valid percent-encoding: decode what can be, so a literal spelled half-encoded still compares.
    return s.replace(/%[0-9a-f]{2}/gi, (h) => String.fromCharCode(Number.parseInt(h.slice(1), 16)));
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
