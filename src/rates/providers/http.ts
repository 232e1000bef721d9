// One GET of a JSON document with a whole-request timeout, a size cap, and every
// failure turned into a ProviderError naming the provider.
import { type JsonValue, parseExactJson } from '../../money/exact-json.ts';
import { ProviderError } from './types.ts';

/** Largest response body accepted from a provider. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Fetches `url` and parses the body with exact numbers; rejects with a ProviderError on any failure. */
export async function getJson(
  provider: string,
  url: string,
  timeoutMs: number,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<JsonValue> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
  let text: string;
  try {
    const res = await fetch(url, {
      signal: combined,
      headers: { accept: 'application/json', 'user-agent': 'satgate-rates/1', ...headers },
      redirect: 'follow',
    });
    if (!res.ok) {
      const snippet = (await readCapped(res, 300).catch(() => '')).replace(/\s+/g, ' ').trim();
      throw new ProviderError(provider, 'http', `HTTP ${res.status}${snippet ? `: ${snippet.slice(0, 200)}` : ''}`, res.status);
    }
    text = await readCapped(res, MAX_BODY_BYTES, provider);
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    if (timeout.aborted) throw new ProviderError(provider, 'timeout', `no complete answer within ${timeoutMs} ms`);
    if (signal?.aborted) throw new ProviderError(provider, 'aborted', 'request cancelled');
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new ProviderError(provider, 'network', `request failed (${err instanceof Error ? err.message : String(err)}${cause})`);
  }
  try {
    return parseExactJson(text);
  } catch (err) {
    throw new ProviderError(provider, 'malformed', `body is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

async function readCapped(res: Response, cap: number, provider?: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      if (provider) throw new ProviderError(provider, 'malformed', `body larger than ${cap} bytes`);
      chunks.push(value);
      break;
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)).slice(0, provider ? undefined : cap);
}

/** Joins a base URL and a path, tolerating a trailing slash on the base. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
