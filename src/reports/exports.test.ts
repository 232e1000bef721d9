import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { csvField, csvLine, summarize, writeRows } from './exports.ts';
import type { LedgerFigures, LedgerRow } from './ledger.ts';

const python = (() => {
  try {
    execFileSync('python3', ['-c', 'import csv'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A writable that takes one chunk per tick, as a slow pipe or disk does. */
function slowSink(): Writable & { bytes: number } {
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      sink.bytes += chunk.length;
      setImmediate(done);
    },
  }) as Writable & { bytes: number };
  sink.bytes = 0;
  return sink;
}

describe('ledger exports', () => {
  it.skipIf(!python && process.env.CI !== 'true')('quotes fields as RFC 4180 asks, so Python reads back exactly what was written', () => {
    const fields = ['plain', 'a,b', 'say "hi"', 'two\r\nlines', 'ünïcode €', ''];
    const text = csvLine(fields) + csvLine(['x', 'y', 'z', 'w', 'v', 'u']);
    const script = 'import csv, io, json, sys\nprint(json.dumps(list(csv.reader(io.StringIO(sys.stdin.read(), newline="")))))';
    const parsed = JSON.parse(execFileSync('python3', ['-c', script], { input: text, encoding: 'utf8' })) as string[][];
    expect(parsed[0]).toEqual(fields);
    expect(csvField('1.00000000')).toBe('1.00000000');
  });

  it('writes a shop reference a spreadsheet would run as a formula as text, and signed amounts as numbers', () => {
    expect(csvField('=HYPERLINK("http://evil","x")')).toBe('"\'=HYPERLINK(""http://evil"",""x"")"');
    expect(csvField('+1+1')).toBe("'+1+1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('-0.00120000')).toBe('-0.00120000');
    expect(csvField('order-12')).toBe('order-12');
  });

  it('streams 1,000,000 rows to a slow stream with the heap flat: it waits for the stream to drain', async () => {
    const N = 1_000_000;
    async function* rows() {
      for (let i = 0; i < N; i++) yield { n: String(i), amount: '0.00010000', note: i % 7 === 0 ? 'a,"b"' : 'x' };
    }
    const sink = slowSink();
    let peak = 0;
    const base = process.memoryUsage().heapUsed;
    const n = await writeRows(rows(), ['n', 'amount', 'note'], 'csv', sink, (i) => {
      if (i % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    });
    expect(n).toBe(N);
    expect(sink.bytes).toBeGreaterThan(N * 20);
    // Without waiting for 'drain' the whole export (tens of MB) would pile up in the stream's buffer.
    expect(peak).toBeLessThan(48 * 1024 * 1024);
    expect(sink.writableLength).toBeLessThanOrEqual(16 * 1024 + 200);
  }, 120_000);

  it('sums per period with reversals counted, fiat exact in minor units', async () => {
    const row = (at: string, kind: string, amount: bigint, fee: bigint, fiat: string | null): { row: LedgerRow; figures: LedgerFigures } => ({
      row: { currency: 'USD' } as LedgerRow,
      figures: { at: Date.parse(at), kind, amountSats: amount, feeSats: fee, fiat, confirmedAt: null, live: true, txid: 'x' },
    });
    async function* rows() {
      yield row('2026-01-01T10:00:00Z', 'receipt', 50_000n, 0n, '25.00');
      yield row('2026-01-01T11:00:00Z', 'receipt', 10_000n, 0n, '6.01');
      yield row('2026-01-01T12:00:00Z', 'receipt', -10_000n, 0n, '-6.01');
      yield row('2026-01-02T09:00:00Z', 'refund', -10_000n, -141n, '-5.00');
      yield row('2026-02-03T09:00:00Z', 'receipt', 1n, 0n, '0.00');
    }
    const days = [];
    for await (const d of summarize(rows(), 'day')) days.push(d);
    expect(days).toEqual([
      { period: '2026-01-01', count: '3', btc_in: '0.00050000', btc_out: '0.00000000', fees_btc: '0.00000000', fiat_in: '25.00', currency: 'USD' },
      { period: '2026-01-02', count: '1', btc_in: '0.00000000', btc_out: '0.00010000', fees_btc: '0.00000141', fiat_in: '0.00', currency: 'USD' },
      { period: '2026-02-03', count: '1', btc_in: '0.00000001', btc_out: '0.00000000', fees_btc: '0.00000000', fiat_in: '0.00', currency: 'USD' },
    ]);
    const months = [];
    for await (const m of summarize(rows(), 'month')) months.push(m.period);
    expect(months).toEqual(['2026-01', '2026-02']);
  });
});
