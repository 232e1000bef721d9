// The received-per-day chart as server-rendered SVG: no chart library, no script, no inline style (colours come
// from the stylesheet through classes). Bars are scaled with exact integer arithmetic on satoshis; the table
// beside it carries the same numbers for screen readers and copying.
import { escapeHtml as e } from '../../pages/html.ts';
import { btcFromSats } from '../../money/money.ts';
import type { ReceivedPerDay } from '../../dashboard/received-per-day.ts';

const WIDTH = 600;
const HEIGHT = 200;
const TOP = 16;
const BOTTOM = 24;
const LEFT = 4;

/** The chart and its data table. */
export function renderReceivedChart(data: ReceivedPerDay): string {
  const values = data.days.map((d) => BigInt(d.sats));
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  const plot = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT * 2) / data.days.length;
  const barWidth = Math.max(2, Math.floor(slot * 0.7));
  const unit = data.rate === null ? 'BTC' : data.currency;
  const label = (i: number) => (data.rate === null ? data.days[i]!.btc : data.days[i]!.local!);
  const total = values.reduce((s, v) => s + v, 0n);
  const bars = data.days
    .map((d, i) => {
      // Height in whole pixels from satoshis: integer division, at least one pixel for any amount received.
      const v = values[i]!;
      const h = max === 0n ? 0 : Math.max(v > 0n ? 1 : 0, Number((v * BigInt(plot)) / max));
      const x = Math.round(LEFT + i * slot + (slot - barWidth) / 2);
      const y = TOP + plot - h;
      return `<rect class="bar" x="${x}" y="${y}" width="${barWidth}" height="${h}"><title>${e(d.day)}: ${e(label(i))} ${e(unit)}</title></rect>`;
    })
    .join('');
  const first = data.days[0]?.day ?? '';
  const last = data.days[data.days.length - 1]?.day ?? '';
  const maxIndex = values.findIndex((v) => v === max);
  const summary =
    max === 0n
      ? `Nothing received from ${first} to ${last}.`
      : `Received per day from ${first} to ${last}; the highest was ${label(maxIndex)} ${unit} on ${data.days[maxIndex]!.day}.`;
  const rateNote = data.rate === null ? 'No current exchange rate: amounts in BTC.' : `Valued at the current rate, 1 BTC = ${data.rate} ${data.currency}.`;
  const rows = data.days
    .filter((d) => d.sats !== '0')
    .map((d) => `<tr><td>${e(d.day)}</td><td class="num">${e(d.btc)}</td>${data.rate === null ? '' : `<td class="num">${e(d.local ?? '')}</td>`}</tr>`)
    .join('\n');
  return `<figure class="chart">
  <svg id="received-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="none">
    <title id="chart-title">Received per day, last ${data.days.length} days, in ${e(unit)}</title>
    <desc id="chart-desc">${e(summary)}</desc>
    <line class="axis" x1="${LEFT}" y1="${TOP + plot}" x2="${WIDTH - LEFT}" y2="${TOP + plot}"></line>
    ${bars}
  </svg>
  <figcaption>
    <span class="chart-range"><span>${e(first)}</span><span>${e(last)}</span></span>
    ${e(summary)} ${e(rateNote)}
  </figcaption>
</figure>
<details class="chart-data">
  <summary>Days with payments (${e(String(data.days.filter((d) => d.sats !== '0').length))}), total ${e(btcFromSats(total))} BTC</summary>
  <table>
    <thead><tr><th scope="col">Day (UTC)</th><th scope="col">BTC</th>${data.rate === null ? '' : `<th scope="col">${e(data.currency)}</th>`}</tr></thead>
    <tbody>
${rows || `<tr><td colspan="${data.rate === null ? 2 : 3}">No payments in this period.</td></tr>`}
    </tbody>
  </table>
</details>`;
}

