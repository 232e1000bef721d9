// The hosted payment page (`/pay/:payment_reference`) as a pure function of a payment's public
// data. No inline script or style, so the strict CSP of page-headers.ts holds; the browser
// script reads its state from a JSON data block and polls operations 27 and 29.

import { escapeHtml as e, jsonForScript, safeHttpUrl } from './html.ts';
import { PAGE_COPY } from './page-copy.ts';
import { paymentView, type PaidAmounts } from './payment-view.ts';
import { PAYMENT_STATUS_GROUPS } from '../core/payment-statuses.ts';

/** What the page needs to know about a hosted payment; amounts are decimal strings, dates ISO 8601. */
export interface PaymentPageData {
  reference: string;
  /** The wallet's account name: merchant input, always escaped. */
  site_name: string;
  order_amount: string;
  order_currency: string;
  crypto_amount: string;
  /** "" once the request is invalid. */
  crypto_address: string;
  crypto_currency: string;
  expiry_date: string;
  status: string;
  /** Merchant input: rendered as a link only when it is an http(s) URL. */
  success_url: string | null;
  cancel_url: string | null;
  amounts: PaidAmounts;
}

/** Where the page's static files are served (versioned paths, so they can be cached). */
export interface PageAssetUrls {
  css: string;
  js: string;
  /** The payment form page's script. */
  formJs?: string;
}

/** Rendering options: the server's clock, asset URLs and the status polling interval. */
export interface PaymentPageOptions {
  /** Epoch ms; the browser corrects its own clock by it for the countdown. */
  now: number;
  assets?: PageAssetUrls;
  pollIntervalMs?: number;
  /** Width in pixels asked of operation 28 (shown at half size, sharp on high-density screens). */
  qrWidth?: number;
}

/** Asset URLs when none are given. */
export const DEFAULT_ASSET_URLS: PageAssetUrls = { css: '/pay/assets/page.css', js: '/pay/assets/page.js' };

/** The full HTML document of the hosted payment page for `data` at `opts.now`. */
export function renderPaymentPage(data: PaymentPageData, opts: PaymentPageOptions): string {
  const assets = opts.assets ?? DEFAULT_ASSET_URLS;
  const qrWidth = opts.qrWidth ?? 512;
  const view = paymentView(data, opts.now);
  const apiPath = `/api/v1/payment/${encodeURIComponent(data.reference)}`;
  const success = safeHttpUrl(data.success_url);
  const cancel = safeHttpUrl(data.cancel_url);
  const expiryMs = Date.parse(data.expiry_date);
  const site = e(data.site_name);
  const hidden = (show: boolean) => (show ? '' : ' hidden');

  const state = {
    reference: data.reference,
    api: apiPath,
    status: data.status,
    expiry_ms: Number.isFinite(expiryMs) ? expiryMs : null,
    server_now_ms: opts.now,
    poll_ms: opts.pollIntervalMs ?? 4000,
    order_amount: data.order_amount,
    order_currency: data.order_currency,
    crypto_amount: data.crypto_amount,
    crypto_currency: data.crypto_currency,
    crypto_address: data.crypto_address,
    amounts: data.amounts,
    copy: PAGE_COPY,
    // The status groups the script needs, from the one list (core/payment-statuses.ts).
    statuses: PAYMENT_STATUS_GROUPS,
  };

  const qr = view.showQr
    ? `<img id="qr-image" src="${e(`${apiPath}/qrcode?width=${qrWidth}`)}" width="${qrWidth / 2}" height="${qrWidth / 2}"
        alt="QR code: pay ${e(view.amountToSend)} ${e(data.crypto_currency)} to ${e(data.crypto_address)}">`
    : '';

  const body = `<main class="card" id="payment" data-phase="${e(view.phase)}" data-status="${e(data.status)}">
  <header class="head">
    <p class="eyebrow">Payment to</p>
    <h1 id="site-name">${site}</h1>
  </header>
  <dl class="order">
    <div><dt>Order total</dt><dd><span id="order-amount">${e(data.order_amount)}</span> <span id="order-currency">${e(data.order_currency)}</span></dd></div>
    <div><dt>Reference</dt><dd><code id="reference">${e(data.reference)}</code></dd></div>
  </dl>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(view.headline)}</h2>
      <p id="status-detail">${e(view.detail)}</p>
      <p id="indicative" class="note" hidden></p>
    </div>
    <p id="connection" class="note" hidden></p>
    <p id="countdown-line"${hidden(view.showCountdown && !view.expired)}>Amount guaranteed for <span id="countdown" role="timer">${e(countdownText(expiryMs - opts.now))}</span></p>
  </section>
  <section id="pay" class="pay" aria-label="How to pay"${hidden(view.showPay)}>
    <figure id="qr" class="qr"${hidden(view.showQr)}>${qr}
      <figcaption>Scan with your bitcoin wallet</figcaption>
    </figure>
    <div class="field">
      <p class="label" id="amount-label">${e(view.amountLabel)}</p>
      <p class="value"><code id="crypto-amount">${e(view.amountToSend || '…')}</code> <span class="unit">${e(data.crypto_currency)}</span></p>
      <button type="button" class="copy" data-copy="crypto-amount">Copy amount</button>
    </div>
    <div class="field">
      <p class="label" id="address-label">To this address</p>
      <p class="value"><code id="crypto-address" class="address">${e(data.crypto_address)}</code></p>
      <button type="button" class="copy" data-copy="crypto-address">Copy address</button>
    </div>
    <p id="copy-feedback" class="feedback" role="status" aria-live="polite"></p>
  </section>
  <nav class="actions" aria-label="Return to the shop">
    ${success ? `<a id="success-link" class="button" href="${e(success)}"${hidden(view.showSuccess)}>Continue to ${site}</a>` : ''}
    ${cancel ? `<a id="cancel-link" class="link" href="${e(cancel)}"${hidden(view.showCancel)}>Cancel and return to ${site}</a>` : ''}
  </nav>
  <noscript><p class="note">Reload this page to see the latest status.</p></noscript>
</main>
<script type="application/json" id="page-data">${jsonForScript(state)}</script>`;

  return documentHtml(`Payment to ${data.site_name}`, assets, body, true);
}

/** The HTML page answered for an unknown payment reference (with HTTP 404). */
export function renderNotFoundPage(assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  return messagePage(
    'not-found',
    'Payment not found',
    'There is no payment with this reference. Check the link you were given, or go back to the shop and start again.',
    assets,
  );
}

/** The HTML page answered when the payment cannot be read right now (with HTTP 503). */
export function renderErrorPage(assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  return messagePage(
    'unavailable',
    'Payment page unavailable',
    'The payment cannot be shown right now. Please reload this page in a moment; nothing you sent is lost.',
    assets,
  );
}

function messagePage(id: string, title: string, text: string, assets: PageAssetUrls): string {
  const body = `<main class="card" id="${id}">
  <h1>${e(title)}</h1>
  <p>${e(text)}</p>
</main>`;
  return documentHtml(title, assets, body, false);
}

/** "mm:ss" (or "h:mm:ss") for a remaining time in ms; "expired" at or below zero. */
export function countdownText(remainingMs: number): string {
  if (!Number.isFinite(remainingMs) || remainingMs <= 0) return PAGE_COPY.expired;
  const total = Math.ceil(remainingMs / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

/** The HTML document around a page body: shared head (CSP-safe: stylesheet and script are files). */
export function documentHtml(title: string, assets: PageAssetUrls, body: string, withScript: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${e(title)}</title>
<link rel="stylesheet" href="${e(assets.css)}">
${withScript ? `<script src="${e(assets.js)}" defer></script>\n` : ''}</head>
<body>
${body}
</body>
</html>
`;
}
