import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../test/support/replay-server.ts';
import { FileRateProvider, parseRatesFile } from './rates-file.ts';
import { ProviderError } from './types.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'satgate-rates-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function problem(text: string): string {
  try {
    parseRatesFile(text, 'rates.json');
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).reason).toBe('config');
    return (err as ProviderError).message;
  }
  throw new Error('expected a failure');
}

describe('rates file', () => {
  it('reads the fixture: uppercase codes to decimal strings', async () => {
    const rates = await new FileRateProvider(join(FIXTURES_DIR, 'rates/rates-file.json')).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ USD: '50000', EUR: '46000.5', JPY: '7400000' });
  });

  it('re-reads the file on every fetch', async () => {
    const path = join(dir, 'live.json');
    const provider = new FileRateProvider(path);
    await writeFile(path, '{"USD":"50000"}');
    expect((await provider.fetchRates()).get('USD')).toBe('50000');
    await writeFile(path, '{"USD":"51000.25"}');
    expect((await provider.fetchRates()).get('USD')).toBe('51000.25');
  });

  it('names a missing file', async () => {
    const err = await new FileRateProvider(join(dir, 'nope.json')).fetchRates().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(/^file: cannot read .*nope\.json/);
  });

  it('explains each kind of mistake, all at once', () => {
    expect(problem('{"USD": 50000}')).toContain('USD: write the price as a string ("50000"), not a JSON number');
    expect(problem('{"usd":"1"}')).toContain('"usd" must be written in uppercase ("USD")');
    expect(problem('{"BTC":"1"}')).toContain('"BTC" is not an ISO 4217 currency code');
    expect(problem('{"USD":"5e4"}')).toContain('USD: "5e4" is not a plain decimal string');
    expect(problem('{"USD":"-1"}')).toContain('is not a plain decimal string');
    expect(problem('{"USD":"0"}')).toContain('USD: price 0 is outside 0.01 to 1000000000000000');
    expect(problem('{"USD":null}')).toContain('USD: null is not a plain decimal string');
    expect(problem('[]')).toContain('must be a JSON object');
    expect(problem('{}')).toContain('holds no currency');
    expect(problem('{"USD":"1",')).toContain('not valid JSON');
    const both = problem('{"usd":"1","EUR":"x"}');
    expect(both).toContain('"usd" must be written in uppercase');
    expect(both).toContain('EUR: "x" is not a plain decimal string');
    expect(both.startsWith('file: rates.json: ')).toBe(true);
  });
});
