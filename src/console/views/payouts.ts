// The payouts page: for each watch-only wallet, the approved Greenfield payouts no transaction pays yet, the PSBT
// paying them all to download and the form that takes the signed one back (as the refunds page does for refunds).
// Service-held wallets pay their approved payouts themselves and are not listed.
import { escapeHtml as e } from '../../pages/html.ts';
import { btcFromSats } from '../../money/money.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import { consolePage, csrfField, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** One payout waiting for a transaction. */
export interface DuePayout {
  public_id: string;
  destination: string;
  amount_sats: bigint;
}

/** The payouts page: the watch-only wallets with their due payouts. */
export function renderPayouts(base: Base, wallets: { wallet: WalletOverview; due: DuePayout[] }[]): string {
  const csrf = base.user!.csrf;
  const waiting = wallets.filter((w) => w.due.length > 0);
  if (waiting.length === 0) {
    const body = `<section class="panel"><p>No approved payout is waiting for a transaction. Payouts of a wallet whose keys are yours appear here once approved (through the Greenfield API); a wallet held by satgate pays its payouts itself.</p></section>`;
    return consolePage({ ...base, title: 'Payouts', section: 'payouts' }, body);
  }
  const sections = waiting
    .map(({ wallet: w, due }, i) => {
      const unit = w.mode === 'live' ? 'BTC' : 'testBTC';
      const total = due.reduce((s, p) => s + p.amount_sats, 0n);
      const rows = due
        .map((p) => `<tr data-payout="${e(p.public_id)}"><td data-label="Payout"><code>${e(p.public_id)}</code></td><td class="num" data-label="Amount">${e(btcFromSats(p.amount_sats))} ${unit}</td><td class="wrap" data-label="To"><code>${e(p.destination)}</code></td></tr>`)
        .join('\n');
      return `<section class="panel" aria-labelledby="payouts-${i}">
  <h2 id="payouts-${i}">Payouts of ${e(w.account_name ?? w.api_id)}</h2>
  <div class="table-wrap"><table class="cards payouts">
  <caption>Approved, waiting for a transaction: ${due.length} (${e(btcFromSats(total))} ${unit})</caption>
  <thead><tr><th scope="col">Payout</th><th scope="col">Amount</th><th scope="col">To</th></tr></thead>
  <tbody>
${rows}
  </tbody></table></div>
  <p>This wallet's keys are yours, so you sign its payouts: download the PSBT paying all of them, sign it in your wallet (Electrum, Sparrow, a hardware wallet), and give back the signed PSBT or raw transaction.</p>
  <p><a class="button secondary" href="/console/payouts/psbt?api_id=${encodeURIComponent(w.api_id)}" download>Download PSBT</a></p>
  <form method="post" action="/console/payouts/signed" class="form">
    ${csrfField(csrf)}
    <input type="hidden" name="api_id" value="${e(w.api_id)}">
    <div class="field">
      <label for="payout-file-${i}">Signed PSBT file (optional: fills the box below)</label>
      <input id="payout-file-${i}" type="file" accept=".psbt,.txn,.txt" data-fills="payout-signed-${i}">
    </div>
    <div class="field">
      <label for="payout-signed-${i}">Signed PSBT (base64 or hex) or raw transaction (hex); for a multisig wallet, each cosigner's signed PSBT, one per line</label>
      <textarea id="payout-signed-${i}" name="signed" rows="4" required maxlength="400000" spellcheck="false"></textarea>
    </div>
    <button type="submit" class="button">Check and broadcast</button>
  </form>
</section>`;
    })
    .join('\n');
  return consolePage({ ...base, title: 'Payouts', section: 'payouts' }, sections);
}
