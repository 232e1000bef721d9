// The payment form page (`/form/:form_token`) as a pure function of the form's state. It shares the
// hosted payment page's document, stylesheet, escaping and headers: no inline script or style, so the
// strict CSP holds; every merchant string goes through escapeHtml; the browser script (form.js) reads
// its state from a JSON data block, submits the fields and polls the state without reloading.
import { escapeHtml as e, jsonForScript, safeHttpUrl } from './html.ts';
import { countdownText, documentHtml, DEFAULT_ASSET_URLS, type PageAssetUrls } from './payment-page.ts';
import { fiatForDisplay } from '../money/fiat-display.ts';

/** A payer field as the page shows it. */
export interface FormPageField {
  name: string;
  display_name: string;
  required: 0 | 1;
  type: 'text' | 'textarea' | 'email';
  value: string;
}

/** What the page needs: the form service's page state (src/forms/form-service.ts) extends it. */
export interface FormPageView {
  token: string;
  phase: 'fields' | 'pay' | 'partly' | 'partly-expired' | 'paid' | 'expired';
  order_status: string;
  payment_status: string;
  site_name: string;
  order_id: string;
  order_amount: string;
  order_currency: string;
  crypto_currency: string;
  address: string;
  /** Sats still to send in the current lock period, in BTC ("0" when nothing is due). */
  crypto_amount_due: string;
  exchange_rate: string;
  expires_ms: number;
  remaining_order_amount: string;
  user_fields: FormPageField[];
  ask_email: boolean;
  cancel_url: string;
  complete_url: string | null;
}

/** Every sentence of the form page by phase; the script uses the same ones. */
export const FORM_COPY = {
  headlines: {
    fields: 'Your details',
    pay: 'Waiting for your payment',
    partly: 'Payment received, but it is not enough',
    'partly-expired': 'Part of the amount is still due',
    paid: 'Paid: thank you',
    expired: 'This payment form has expired',
  },
  details: {
    fields: 'The shop needs these details before you pay.',
    pay: 'Send the amount below to the address below. The amount is guaranteed until the countdown ends.',
    partly: 'Still missing: {remaining} {currency}. Send the remaining amount below to the same address.',
    'partly-expired': 'Still missing: {remaining} {currency}. The guaranteed rate has run out: refresh it to see the amount to send.',
    paid: 'Your payment has been received. You will be sent back to the shop in a few seconds.',
    expired: 'Nothing was paid while the amount was guaranteed. Do not send any funds; return to the shop to start again.',
  },
  optionalPrefix: '(Optional) ',
  emailLabel: 'Your e-mail address',
  receiptConsent: 'E-mail me a receipt',
  expired: 'expired',
  copied: 'Copied.',
  copyFallback: 'Selected: press Ctrl+C (or long-press and choose Copy) to copy.',
  offline: 'Cannot reach the server right now; retrying…',
  refreshFailed: 'The rate could not be refreshed right now; try again in a moment.',
} as const;

/** Rendering options. */
export interface FormPageOptions {
  now: number;
  assets?: PageAssetUrls;
  pollIntervalMs?: number;
  /** Delay before the paid page sends the payer to the shop (default 5 s). */
  redirectMs?: number;
}

/** The full HTML document of the form page. */
export function renderFormPage(v: FormPageView, opts: FormPageOptions): string {
  const assets = opts.assets ?? DEFAULT_ASSET_URLS;
  const base = `/form/${encodeURIComponent(v.token)}`;
  const site = e(v.site_name);
  const cancel = safeHttpUrl(v.cancel_url);
  const hidden = (show: boolean) => (show ? '' : ' hidden');
  const fill = (t: string) => t.replace('{remaining}', v.remaining_order_amount).replace('{currency}', v.order_currency);
  const paying = v.phase === 'pay' || v.phase === 'partly';
  const state = {
    base,
    view: { ...v, cancel_url: cancel, complete_url: safeHttpUrl(v.complete_url) },
    server_now_ms: opts.now,
    poll_ms: opts.pollIntervalMs ?? 4000,
    redirect_ms: opts.redirectMs ?? 5000,
    copy: FORM_COPY,
  };
  const inputs = v.user_fields
    .map((f) => {
      const id = `field-${e(f.name)}`;
      const label = `${f.required ? '' : FORM_COPY.optionalPrefix}${f.display_name}`;
      const req = f.required ? ' required' : '';
      const control =
        f.type === 'textarea'
          ? `<textarea id="${id}" name="${e(f.name)}" maxlength="4000"${req}>${e(f.value)}</textarea>`
          : `<input id="${id}" name="${e(f.name)}" type="${f.type === 'email' ? 'email' : 'text'}" maxlength="4000" value="${e(f.value)}"${req}${f.type === 'email' ? ' autocomplete="email"' : ''}>`;
      return `<div><label for="${id}">${e(label)}</label>${control}</div>`;
    })
    .join('\n      ');
  // Consent to a receipt sits with the e-mail field it is sent to, unchecked: nothing is mailed unless the payer asks.
  const email = v.ask_email
    ? `<div><label for="user-email">${e(FORM_COPY.emailLabel)}</label><input id="user-email" name="user_email" type="email" maxlength="254" autocomplete="email" required></div>
      <div class="consent"><input id="receipt-consent" name="receipt" type="checkbox"> <label for="receipt-consent">${e(FORM_COPY.receiptConsent)}</label></div>`
    : '';

  const body = `<main class="card" id="form" data-phase="${e(v.phase)}">
  <header class="head">
    <p class="eyebrow">Payment to</p>
    <h1 id="site-name">${site}</h1>
  </header>
  <dl class="order">
    <div><dt>Order total</dt><dd><span id="order-amount">${e(fiatForDisplay(v.order_amount, v.order_currency))}</span> <span id="order-currency">${e(v.order_currency)}</span></dd></div>
    <div><dt>Order</dt><dd><code id="order-id">${e(v.order_id)}</code></dd></div>
  </dl>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(FORM_COPY.headlines[v.phase])}</h2>
      <p id="status-detail">${e(fill(FORM_COPY.details[v.phase]))}</p>
    </div>
    <p id="connection" class="note" hidden></p>
    <p id="countdown-line"${hidden(paying)}>Amount guaranteed for <span id="countdown" role="timer">${e(countdownText(v.expires_ms - opts.now))}</span></p>
  </section>
  <section id="fields-step" aria-label="Your details"${hidden(v.phase === 'fields')}>
    <form id="fields-form">
      <div class="inputs">
      ${inputs}
      ${email}
      </div>
      <p id="fields-error" class="error" role="alert"></p>
      <button type="submit" class="button" id="fields-submit">Continue to payment</button>
    </form>
  </section>
  <section id="pay" class="pay" aria-label="How to pay"${hidden(paying)}>
    <figure id="qr" class="qr">
      <figcaption>Scan with your bitcoin wallet</figcaption>
    </figure>
    <div class="field">
      <p class="label" id="amount-label">${v.phase === 'partly' ? 'Remaining amount to send' : 'Amount to send'}</p>
      <p class="value"><code id="crypto-amount">${e(v.crypto_amount_due)}</code> <span class="unit">${e(v.crypto_currency)}</span></p>
      <button type="button" class="copy" data-copy="crypto-amount">Copy amount</button>
    </div>
    <div class="field">
      <p class="label">To this address</p>
      <p class="value"><code id="crypto-address" class="address">${e(v.address)}</code></p>
      <button type="button" class="copy" data-copy="crypto-address">Copy address</button>
    </div>
    <p id="copy-feedback" class="feedback" role="status" aria-live="polite"></p>
  </section>
  <section id="refresh-step"${hidden(v.phase === 'partly-expired')}>
    <button type="button" class="button" id="refresh-button">Refresh the rate</button>
    <p id="refresh-error" class="error" role="alert"></p>
  </section>
  <nav class="actions" aria-label="Return to the shop">
    <a id="complete-link" class="button" href="#" hidden>Continue to ${site}</a>
    ${cancel ? `<a id="cancel-link" class="link" href="${e(cancel)}"${hidden(v.phase !== 'paid')}>Cancel and return to ${site}</a>` : ''}
  </nav>
  <noscript><p class="note">This page needs JavaScript to send your details and follow your payment.</p></noscript>
</main>
<script type="application/json" id="form-data">${jsonForScript(state)}</script>`;
  return documentHtml(`Payment to ${v.site_name}`, { ...assets, js: assets.formJs ?? assets.js }, body, true);
}

/** The page for an unknown form token (HTTP 404). */
export function renderFormNotFound(assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  const body = `<main class="card" id="not-found">
  <h1>Payment form not found</h1>
  <p>There is no payment form at this address. Check the link you were given, or go back to the shop and start again.</p>
</main>`;
  return documentHtml('Payment form not found', assets, body, false);
}
