// The payment form page (`/form/:form_token`) as a pure function of the form's state. It shares the
// hosted payment page's document, stylesheet, escaping and headers: no inline script or style, so the
// strict CSP holds; every merchant string goes through escapeHtml; the browser script (form.js) reads
// its state from a JSON data block, submits the fields and polls the state without reloading.
import { escapeHtml as e, jsonForScript, safeHttpUrl } from './html.ts';
import { countdownText, documentHtml, DEFAULT_ASSET_URLS, languagePicker, messagePage, shopLink, withCountdown, type PageAssetUrls } from './payment-page.ts';
import { fillCopy } from './page-copy.ts';
import { messagesFor, type Messages } from './messages.ts';
import { DEFAULT_LANGUAGE } from './locales/index.ts';

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

/** The sentences of the form page (server and script alike); `{remaining}` and `{currency}` are left for the script. */
export interface FormCopy {
  headlines: Record<FormPageView['phase'], string>;
  details: Record<FormPageView['phase'], string>;
  amountLabels: { due: string; remaining: string };
  /** The QR code's text alternative; {amount}, {crypto_currency} and {address} are filled by the script. */
  qrAlt: string;
  expired: string;
  copied: string;
  copyFallback: string;
  offline: string;
  refreshFailed: string;
  detailsNotAccepted: string;
}

/**
 * The copy of the form page in `m`'s language. Placeholders the browser script fills stay `{name}` in the result,
 * so the script needs no message parser (as pageCopy does for the payment page).
 */
export function formCopy(m: Messages): FormCopy {
  const keep = (...names: string[]) => Object.fromEntries(names.map((n) => [n, `{${n}}`]));
  const missing = keep('remaining', 'currency');
  return {
    headlines: {
      fields: m.t('form.yourDetails'),
      pay: m.t('form.headline.waitingForPayment'),
      partly: m.t('form.headline.receivedNotEnough'),
      'partly-expired': m.t('form.headline.partStillDue'),
      paid: m.t('form.headline.paidThankYou'),
      expired: m.t('form.headline.formExpired'),
    },
    details: {
      fields: m.t('form.detail.shopNeedsDetails'),
      pay: m.t('form.detail.sendAmountGuaranteedUntilCountdownEnds'),
      partly: m.t('form.detail.stillMissingSendRemaining', missing),
      'partly-expired': m.t('form.detail.stillMissingRefreshRate', missing),
      paid: m.t('form.detail.receivedSendingBackSoon'),
      expired: m.t('form.detail.nothingPaidDoNotSend'),
    },
    amountLabels: { due: m.t('common.amountToSend'), remaining: m.t('common.remainingAmountToSend') },
    qrAlt: m.t('common.qrCodeAlt', keep('amount', 'crypto_currency', 'address')),
    expired: m.t('common.countdownExpired'),
    copied: m.t('common.copied'),
    copyFallback: m.t('common.copySelectedPressCtrlC'),
    offline: m.t('common.serverUnreachableRetrying'),
    refreshFailed: m.t('form.rateRefreshFailed'),
    detailsNotAccepted: m.t('form.detailsNotAccepted'),
  };
}

/** The English copy of the form page. */
export const FORM_COPY: FormCopy = formCopy(messagesFor(DEFAULT_LANGUAGE));

/** A message with merchant text in it (a field's name): the merchant text isolated, the rest escaped. */
function withMerchantText(m: Messages, key: string, name: string, value: string): string {
  const MARK = '\u0000merchant\u0000';
  const [before = '', after = ''] = m.t(key, { [name]: MARK }).split(MARK);
  return `${e(before)}<bdi>${e(value)}</bdi>${e(after)}`;
}

/** Rendering options. */
export interface FormPageOptions {
  now: number;
  assets?: PageAssetUrls;
  pollIntervalMs?: number;
  /** Delay before the paid page sends the payer to the shop (default 5 s). */
  redirectMs?: number;
  /** The payer's language (default English). */
  messages?: Messages;
}

/** The full HTML document of the form page. */
export function renderFormPage(v: FormPageView, opts: FormPageOptions): string {
  const assets = opts.assets ?? DEFAULT_ASSET_URLS;
  const m = opts.messages ?? messagesFor(DEFAULT_LANGUAGE);
  const copy = m.lang === DEFAULT_LANGUAGE ? FORM_COPY : formCopy(m);
  const base = `/form/${encodeURIComponent(v.token)}`;
  const named = v.site_name.trim() !== '';
  const cancel = safeHttpUrl(v.cancel_url);
  const hidden = (show: boolean) => (show ? '' : ' hidden');
  const fill = (t: string) => fillCopy(t, { remaining: m.fiat(v.remaining_order_amount, v.order_currency), currency: v.order_currency });
  const paying = v.phase === 'pay' || v.phase === 'partly';
  const state = {
    base,
    view: { ...v, cancel_url: cancel, complete_url: safeHttpUrl(v.complete_url) },
    server_now_ms: opts.now,
    poll_ms: opts.pollIntervalMs ?? 4000,
    redirect_ms: opts.redirectMs ?? 5000,
    // The script formats the amounts it writes with the page's locale, as the server does (messages.ts).
    locale: m.lang,
    copy,
  };
  const inputs = v.user_fields
    .map((f) => {
      const id = `field-${e(f.name)}`;
      const label = f.required ? `<bdi>${e(f.display_name)}</bdi>` : withMerchantText(m, 'form.optionalField', 'field', f.display_name);
      const req = f.required ? ' required' : '';
      const control =
        f.type === 'textarea'
          ? `<textarea id="${id}" name="${e(f.name)}" maxlength="4000"${req}>${e(f.value)}</textarea>`
          : `<input id="${id}" name="${e(f.name)}" type="${f.type === 'email' ? 'email' : 'text'}" maxlength="4000" value="${e(f.value)}"${req}${f.type === 'email' ? ' autocomplete="email" dir="ltr"' : ''}>`;
      return `<div><label for="${id}">${label}</label>${control}</div>`;
    })
    .join('\n      ');
  // Consent to a receipt sits with the e-mail field it is sent to, unchecked: nothing is mailed unless the payer asks.
  const email = v.ask_email
    ? `<div><label for="user-email">${e(m.t('form.yourEmailAddress'))}</label><input id="user-email" name="user_email" type="email" maxlength="254" autocomplete="email" dir="ltr" required></div>
      <div class="consent"><input id="receipt-consent" name="receipt" type="checkbox"> <label for="receipt-consent">${e(m.t('form.emailMeReceipt'))}</label></div>`
    : '';
  // The fields step has no label of its own: the status headline above it already says "Your details", and two
  // regions of one name confuse a screen reader's landmark list.
  // The fields form says method="post" though its script sends it: with JavaScript off, the payer's details must
  // never end up in a URL (the CSP lets same-origin forms through, for the language picker).
  const qrAlt = fillCopy(copy.qrAlt, { amount: v.crypto_amount_due, crypto_currency: v.crypto_currency, address: v.address });

  const body = `<main class="card" id="form" data-phase="${e(v.phase)}">
  <header class="head">
    ${named ? `<p class="eyebrow">${e(m.t('common.paymentTo'))}</p>
    <h1 id="site-name"><bdi>${e(v.site_name)}</bdi></h1>` : `<h1 id="site-name">${e(m.t('common.bitcoinPayment'))}</h1>`}
  </header>
  <dl class="order">
    <div><dt>${e(m.t('common.orderTotal'))}</dt><dd><bdi dir="ltr"><span id="order-amount">${e(m.fiat(v.order_amount, v.order_currency))}</span> <span id="order-currency">${e(v.order_currency)}</span></bdi></dd></div>
    <div><dt>${e(m.t('common.order'))}</dt><dd><bdi><code id="order-id">${e(v.order_id)}</code></bdi></dd></div>
  </dl>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(copy.headlines[v.phase])}</h2>
      <p id="status-detail">${e(fill(copy.details[v.phase]))}</p>
    </div>
    <p id="connection" class="note" hidden></p>
    <p id="countdown-line"${hidden(paying)}>${withCountdown(m, countdownText(v.expires_ms - opts.now, copy.expired))}</p>
  </section>
  <section id="fields-step"${hidden(v.phase === 'fields')}>
    <form id="fields-form" method="post">
      <div class="inputs">
      ${inputs}
      ${email}
      </div>
      <p id="fields-error" class="error" role="alert"></p>
      <button type="submit" class="button" id="fields-submit">${e(m.t('form.continueToPayment'))}</button>
    </form>
  </section>
  <section id="pay" class="pay" aria-label="${e(m.t('common.howToPay'))}"${hidden(paying)}>
    <figure id="qr" class="qr">${paying && v.crypto_amount_due !== '0' ? `<img id="qr-image" src="${e(`${base}/qrcode?width=512&a=${encodeURIComponent(v.crypto_amount_due)}`)}" width="256" height="256" alt="${e(qrAlt)}">` : ''}
      <figcaption>${e(m.t('common.scanWithWallet'))}</figcaption>
    </figure>
    <div class="field">
      <p class="label" id="amount-label">${e(v.phase === 'partly' ? copy.amountLabels.remaining : copy.amountLabels.due)}</p>
      <p class="value" dir="ltr"><code id="crypto-amount">${e(v.crypto_amount_due)}</code> <span class="unit">${e(v.crypto_currency)}</span></p>
      <button type="button" class="copy" data-copy="crypto-amount">${e(m.t('common.copyAmount'))}</button>
    </div>
    <div class="field">
      <p class="label">${e(m.t('common.toThisAddress'))}</p>
      <p class="value" dir="ltr"><code id="crypto-address" class="address">${e(v.address)}</code></p>
      <button type="button" class="copy" data-copy="crypto-address">${e(m.t('common.copyAddress'))}</button>
    </div>
    <p id="copy-feedback" class="feedback" role="status" aria-live="polite"></p>
  </section>
  <section id="refresh-step"${hidden(v.phase === 'partly-expired')}>
    <button type="button" class="button" id="refresh-button">${e(m.t('form.refreshRate'))}</button>
    <p id="refresh-error" class="error" role="alert"></p>
  </section>
  <nav class="actions" aria-label="${e(m.t('common.returnToTheShopNav'))}">
    <a id="complete-link" class="button" href="#" hidden>${shopLink(m, named, 'continue', v.site_name)}</a>
    ${cancel ? `<a id="cancel-link" class="link" href="${e(cancel)}"${hidden(v.phase !== 'paid')}>${shopLink(m, named, 'cancel', v.site_name)}</a>` : ''}
  </nav>
  <noscript><p class="note">${e(m.t('form.needsJavaScript'))}</p></noscript>
</main>
${languagePicker(m)}
<script type="application/json" id="form-data">${jsonForScript(state)}</script>`;
  const title = named ? m.t('common.pageTitlePaymentTo', { shop: v.site_name }) : m.t('common.bitcoinPayment');
  return documentHtml(title, { ...assets, js: assets.formJs ?? assets.js }, body, true, assets.formJs ?? assets.js, m);
}

/** The page for an unknown form token (HTTP 404). */
export function renderFormNotFound(assets: PageAssetUrls = DEFAULT_ASSET_URLS, m: Messages = messagesFor(DEFAULT_LANGUAGE)): string {
  return messagePage('not-found', m.t('form.notFoundTitle'), m.t('form.notFoundText'), assets, m);
}
