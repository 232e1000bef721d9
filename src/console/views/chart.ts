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

/** A bar chart: one bar per period, scaled from exact integers (satoshis, or a currency's minor units). */
export interface BarChart {
  ids: { svg: string; title: string; desc: string };
  /** What the chart shows, its accessible name. */
  title: string;
  /** The figures in a sentence, its accessible description. */
  summary: string;
  /** Said under the chart after the summary (how amounts are valued). */
  note: string;
  bars: { period: string; value: bigint; text: string }[];
}

/** The SVG figure of a bar chart, with role="img" and its name and description; a period at or below zero has no bar. */
export function renderBarChart(c: BarChart): string {
  const max = c.bars.reduce((m, b) => (b.value > m ? b.value : m), 0n);
  const plot = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT * 2) / Math.max(1, c.bars.length);
  const barWidth = Math.max(2, Math.floor(slot * 0.7));
  const bars = c.bars
    .map((b, i) => {
      // Height in whole pixels by integer division, at least one pixel for any amount received.
      const v = b.value > 0n ? b.value : 0n;
      const h = max === 0n ? 0 : Math.max(v > 0n ? 1 : 0, Number((v * BigInt(plot)) / max));
      const x = Math.round(LEFT + i * slot + (slot - barWidth) / 2);
      const y = TOP + plot - h;
      return `<rect class="bar" x="${x}" y="${y}" width="${barWidth}" height="${h}"><title>${e(b.period)}: ${e(b.text)}</title></rect>`;
    })
    .join('');
  const first = c.bars[0]?.period ?? '';
  const last = c.bars[c.bars.length - 1]?.period ?? '';
  return `<figure class="chart">
  <svg id="${e(c.ids.svg)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${e(c.ids.title)} ${e(c.ids.desc)}" preserveAspectRatio="none">
    <title id="${e(c.ids.title)}">${e(c.title)}</title>
    <desc id="${e(c.ids.desc)}">${e(c.summary)}</desc>
    <line class="axis" x1="${LEFT}" y1="${TOP + plot}" x2="${WIDTH - LEFT}" y2="${TOP + plot}"></line>
    ${bars}
  </svg>
  <figcaption>
    <span class="chart-range"><span>${e(first)}</span><span>${e(last)}</span></span>
    ${e(c.summary)} ${e(c.note)}
  </figcaption>
</figure>`;
}

/** The chart and its data table. */
export function renderReceivedChart(data: ReceivedPerDay): string {
  const values = data.days.map((d) => BigInt(d.sats));
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  const unit = data.rate === null ? 'BTC' : data.currency;
  const label = (i: number) => (data.rate === null ? data.days[i]!.btc : data.days[i]!.local!);
  const total = values.reduce((s, v) => s + v, 0n);
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
  const figure = renderBarChart({
    ids: { svg: 'received-chart', title: 'chart-title', desc: 'chart-desc' },
    title: `Received per day, last ${data.days.length} days, in ${unit}`,
    summary,
    note: rateNote,
    bars: data.days.map((d, i) => ({ period: d.day, value: values[i]!, text: `${label(i)} ${unit}` })),
  });
  return `${figure}
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

