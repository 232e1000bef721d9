// The received-per-day chart: bar heights scaled exactly from satoshis, a bar of at least one pixel for any amount,
// labels escaped, and a text alternative (title, description, table) carrying the same numbers.
import { describe, expect, it } from 'vitest';
import { renderReceivedChart } from './chart.ts';
import type { ReceivedPerDay } from '../../dashboard/received-per-day.ts';
import { btcFromSats, satsToFiat } from '../../money/money.ts';

function data(sats: bigint[], rate: string | null = '50000'): ReceivedPerDay {
  return {
    api_id: 'test_x',
    currency: 'USD',
    rate,
    days: sats.map((s, i) => ({
      day: `2026-11-${String(i + 1).padStart(2, '0')}`,
      sats: s.toString(),
      btc: btcFromSats(s),
      local: rate === null ? null : satsToFiat(s, rate, 'USD'),
    })),
  };
}

const heights = (svg: string) => [...svg.matchAll(/<rect class="bar" [^>]*height="(\d+)"/g)].map((m) => Number(m[1]));

describe('the received-per-day chart', () => {
  it('scales bars to the highest day with a one-pixel floor for small amounts', () => {
    const svg = renderReceivedChart(data([0n, 100_000_000n, 50_000_000n, 1n]));
    expect(heights(svg)).toEqual([0, 160, 80, 1]);
    expect(svg).toContain('the highest was 50000.00 USD on 2026-11-02');
    expect(svg).toContain('<title>2026-11-02: 50000.00 USD</title>');
    expect(svg).toContain('role="img" aria-labelledby="chart-title chart-desc"');
  });

  it('says when nothing came in, and shows BTC without a current rate', () => {
    expect(renderReceivedChart(data([0n, 0n]))).toContain('Nothing received from 2026-11-01 to 2026-11-02.');
    const btc = renderReceivedChart(data([0n, 25_000n], null));
    expect(btc).toContain('in BTC</title>');
    expect(btc).toContain('No current exchange rate: amounts in BTC.');
    expect(btc).toContain('total 0.00025 BTC');
  });

  it('escapes what it writes and carries no inline style or script', () => {
    const d = data([10n]);
    d.currency = '<b>';
    const svg = renderReceivedChart(d);
    expect(svg).not.toContain('<b>');
    expect(svg).not.toMatch(/\sstyle=|<script|\son[a-z]+=/);
  });
});
