// A fixed rates file (SATGATE_RATES_FILE) for offline use and tests:
// {"USD":"50000.00","EUR":"46000.50","JPY":"7400000"}, price of 1 BTC per uppercase code.
import { readFile } from 'node:fs/promises';
import { isIso4217 } from '../../money/currencies.ts';
import { isDecimal, normalizeDecimal } from '../../money/decimal.ts';
import { isJsonObject, JsonNumber, parseExactJson } from '../../money/exact-json.ts';
import { MAX_BTC_PRICE, MIN_BTC_PRICE, ProviderError, type RateMap, type RateProvider, isPlausiblePrice } from './types.ts';

/** Validates a rates file's text; throws a ProviderError (reason `config`) listing every problem. */
export function parseRatesFile(text: string, source = 'rates file'): RateMap {
  const fail = (problems: string[]): never => {
    throw new ProviderError('file', 'config', `${source}: ${problems.join('; ')}`);
  };
  let body;
  try {
    body = parseExactJson(text);
  } catch (err) {
    return fail([`not valid JSON (${err instanceof Error ? err.message : String(err)})`]);
  }
  if (!isJsonObject(body)) return fail(['must be a JSON object like {"USD":"50000.00"}']);
  const problems: string[] = [];
  const out: RateMap = new Map();
  for (const [code, value] of Object.entries(body)) {
    const name = JSON.stringify(code);
    if (!isIso4217(code)) {
      const upper = code.toUpperCase();
      problems.push(isIso4217(upper) ? `${name} must be written in uppercase ("${upper}")` : `${name} is not an ISO 4217 currency code`);
      continue;
    }
    if (value instanceof JsonNumber) {
      problems.push(`${code}: write the price as a string ("${value.text}"), not a JSON number`);
      continue;
    }
    if (typeof value !== 'string' || !isDecimal(value)) {
      problems.push(`${code}: ${JSON.stringify(value)} is not a plain decimal string such as "50000.00"`);
      continue;
    }
    if (!isPlausiblePrice(value)) {
      problems.push(`${code}: price ${value} is outside ${MIN_BTC_PRICE} to ${MAX_BTC_PRICE}`);
      continue;
    }
    out.set(code, normalizeDecimal(value));
  }
  if (problems.length > 0) fail(problems);
  if (out.size === 0) fail(['holds no currency']);
  return out;
}

/** Provider that reads the file on every fetch, so an operator's edit applies at the next refresh. */
export class FileRateProvider implements RateProvider {
  readonly name = 'file';

  constructor(private readonly path: string) {}

  /** Reads and validates the file; unreadable or invalid content rejects with reason `config`. */
  async fetchRates(): Promise<RateMap> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      throw new ProviderError(this.name, 'config', `cannot read ${this.path} (${err instanceof Error ? err.message : String(err)})`);
    }
    return parseRatesFile(text, this.path);
  }
}
