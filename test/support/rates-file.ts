import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a SATGATE_RATES_FILE (uppercase code → price of 1 BTC) to a temp file and returns its path. */
export function writeRatesFile(rates: Record<string, string> = { USD: '50000.00', EUR: '46000.50', JPY: '7400000' }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'satgate-rates-')), 'rates.json');
  writeFileSync(file, JSON.stringify(rates));
  return file;
}
