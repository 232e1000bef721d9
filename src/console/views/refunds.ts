// The refunds page: every refund of the profile's wallets with its status and confirmations; for watch-only
// wallets with refunds waiting for a transaction, the PSBT to download and the form that takes the signed one.
import { escapeHtml as e } from '../../pages/html.ts';
import type { RefundListing } from '../../refunds/refunds.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import { consolePage, csrfField, offers, statusBadge, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** The refunds page. */
export function renderRefunds(base: Base, refunds: RefundListing[], wallets: WalletOverview[]): string {
  const csrf = base.user!.csrf;
  const byId = new Map(wallets.map((w) => [w.api_id, w]));
  const table = refunds.length
    ? `<div class="table-wrap"><table id="refunds" class="cards">
  <thead><tr><th scope="col">Refund</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">To</th><th scope="col">Confirmations</th></tr></thead>
  <tbody>
${refunds
  .map((r) => {
    const w = byId.get(r.api_id);
    return `<tr data-refund="${e(r.refund_id)}"><td data-label="Refund">#${e(r.refund_id)} of <code class="txid">${e(r.refunded_tx_id.slice(0, 16))}…</code><br><span class="small">${e(w?.account_name ?? r.api_id)}</span></td><td data-label="Status">${statusBadge(r.status)}</td><td class="num" data-label="Amount">${e(r.refund_amount)} ${w?.mode === 'live' ? 'BTC' : 'testBTC'}</td><td class="wrap" data-label="To">${r.refund_addr ? `<code>${e(r.refund_addr)}</code>` : '<span class="muted">waiting for the payer</span>'}</td><td data-label="Confirmations">${r.tx_id ? String(r.confirmations) : '–'}</td></tr>`;
  })
  .join('\n')}
  </tbody></table></div>`
    : '<p>No refunds yet. Request one from a payment\'s detail page.</p>';
  const waiting = wallets.filter(
    (w) => w.settlement_mode === 'direct' && offers(base, 'spend', w.api_id) && refunds.some((r) => r.api_id === w.api_id && r.state === 'scheduled' && r.refund_addr !== ''),
  );
  const sign = waiting
    .map(
      (w, i) => `<section class="panel" aria-labelledby="sign-${i}">
  <h2 id="sign-${i}">Sign refunds of ${e(w.account_name ?? w.api_id)}</h2>
  <p>This wallet's keys are yours, so you sign its refunds: download the PSBT, sign it in your wallet (Electrum, Sparrow, a hardware wallet), and give back the signed PSBT or raw transaction.</p>
  <p><a class="button secondary" href="/console/refunds/psbt?api_id=${encodeURIComponent(w.api_id)}" download>Download PSBT</a></p>
  <form method="post" action="/console/refunds/signed" class="form">
    ${csrfField(csrf)}
    <input type="hidden" name="api_id" value="${e(w.api_id)}">
    <div class="field">
      <label for="signed-file-${i}">Signed PSBT file (optional: fills the box below)</label>
      <input id="signed-file-${i}" type="file" accept=".psbt,.txn,.txt" data-fills="signed-${i}">
    </div>
    <div class="field">
      <label for="signed-${i}">Signed PSBT (base64 or hex) or raw transaction (hex); for a multisig wallet, each cosigner's signed PSBT, one per line</label>
      <textarea id="signed-${i}" name="signed" rows="4" required maxlength="400000" spellcheck="false"></textarea>
    </div>
    <button type="submit" class="button">Check and broadcast</button>
  </form>
</section>`,
    )
    .join('\n');
  return consolePage({ ...base, title: 'Refunds', section: 'refunds' }, `<section class="panel">${table}</section>\n${sign}`);
}
