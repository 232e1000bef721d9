// The status mapping table: every row of status-vectors.json (also printed in docs/greenfield.md) through greenfieldStatus.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES } from '../core/payment-statuses.ts';
import { greenfieldStatus, markableStatuses, type GreenfieldStatusPair, type StatusFacts } from './status-map.ts';

interface Vector {
  case: string;
  facts: StatusFacts;
  expect: GreenfieldStatusPair;
}
const VECTORS = JSON.parse(readFileSync(new URL('./status-vectors.json', import.meta.url), 'utf8')) as Vector[];

describe('Greenfield status mapping', () => {
  it.each(VECTORS.map((v) => [v.case, v] as const))('%s', (_name, v) => {
    expect(greenfieldStatus(v.facts)).toEqual(v.expect);
  });

  it('the table covers every payment status and every Greenfield status and additional status', () => {
    const payments = new Set(VECTORS.map((v) => v.facts.payment));
    for (const s of PAYMENT_STATUSES) expect(payments.has(s), s).toBe(true);
    expect(new Set(VECTORS.map((v) => v.expect.status))).toEqual(new Set(['New', 'Processing', 'Settled', 'Expired', 'Invalid']));
    expect(new Set(VECTORS.map((v) => v.expect.additionalStatus))).toEqual(new Set(['None', 'PaidPartial', 'PaidOver', 'PaidLate', 'Marked', 'Invalid']));
  });

  it('the README prints every row of the table', () => {
    const readme = readFileSync(new URL('../../docs/greenfield.md', import.meta.url), 'utf8');
    for (const v of VECTORS) {
      expect(readme, v.case).toContain(`| ${v.case} | `);
      const line = readme.split('\n').find((l) => l.startsWith(`| ${v.case} | `))!;
      expect(line.endsWith(`| \`${v.expect.status}\` | \`${v.expect.additionalStatus}\` |`), line).toBe(true);
    }
  });

  it('a settled invoice can be marked Invalid, an invalid one Settled, others either', () => {
    expect(markableStatuses('Settled')).toEqual(['Invalid']);
    expect(markableStatuses('Invalid')).toEqual(['Settled']);
    expect(markableStatuses('New')).toEqual(['Settled', 'Invalid']);
  });
});
