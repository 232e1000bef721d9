// The counter's page (/pos/<id>): three screens in one document, switched by pos.js without a reload: the sale
// (items or keypad, cart, tip, totals, Charge), the checkout (QR code, amounts, countdown, live status) and the
// receipt (printable; e-mailed on request). Server-rendered words in the page's language; the script adds no
// words of its own (it reads them from data attributes), so the page stays under the pages' strict CSP.
import { escapeHtml as e } from '../pages/html.ts';
import { documentHtml, languagePicker, withCountdown, type PageAssetUrls } from '../pages/payment-page.ts';
import type { Messages } from '../pages/messages.ts';
import { orderMinorUnits } from '../money/currencies.ts';
import { tipPresetsOf, type PosView } from './pos-apps.ts';

/** The assets of the page: its stylesheet and script. */
export interface PosAssetUrls extends PageAssetUrls {
  posCss: string;
  posJs: string;
}

const MARK = '\u0000name\u0000';

function money(m: Messages, amount: string, currency: string): string {
  return `${currency === 'BTC' ? m.crypto(amount) : m.fiat(amount, currency)} ${currency}`;
}

export function renderPosPage(view: PosView, m: Messages, assets: PosAssetUrls): string {
  const { app, items } = view;
  const cur = app.currency;
  const keypadOnly = Number(app.keypad_only) === 1;
  const keypad = keypadOnly || Number(app.custom_amount) === 1;
  const presets = tipPresetsOf(app);
  const customTip = Number(app.custom_tip) === 1;
  const itemList = items.length === 0 ? '' : `<section id="items" aria-labelledby="items-heading">
    <h2 id="items-heading">${e(m.t('pos.items'))}</h2>
    <ul class="items">${items
      .map((i) => {
        const soldOut = i.stock !== null && BigInt(i.stock) <= 0n;
        const stock = i.stock === null ? '' : `<span class="stock">${e(soldOut ? m.t('pos.soldOut') : m.t('pos.left', { count: Number(i.stock) }))}</span>`;
        // "Add <name>": the words around the name are for screen readers only, so the button's name holds its visible text.
        const [before = '', after = ''] = m.t('pos.add', { name: MARK }).split(MARK);
        return `<li><button type="button" class="item" data-code="${e(i.item_code)}" data-name="${e(i.name)}" data-price="${e(i.price)}" data-stock="${i.stock === null ? '' : e(String(i.stock))}" data-remove="${e(m.t('pos.remove', { name: i.name }))}"${soldOut ? ' disabled' : ''}>
        ${i.image_url !== null ? `<img src="${e(i.image_url)}" alt="" loading="lazy" referrerpolicy="no-referrer">` : ''}
        <span class="name">${before.trim() !== '' ? `<span class="sr-only">${e(before)}</span>` : ''}<bdi>${e(i.name)}</bdi>${after.trim() !== '' ? `<span class="sr-only">${e(after)}</span>` : ''}</span>
        <span class="price" dir="ltr">${e(money(m, i.price, cur))}</span>${stock}
        ${i.description !== null ? `<span class="desc"><bdi>${e(i.description)}</bdi></span>` : ''}
      </button></li>`;
      })
      .join('')}</ul>
  </section>`;
  const digits = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '.', '0'];
  const keypadHtml = !keypad ? '' : `<section id="keypad" aria-labelledby="keypad-heading">
    <h2 id="keypad-heading">${e(m.t('pos.keypad'))}</h2>
    <label for="amount">${e(m.t('pos.customAmount'))} (${e(cur)})</label>
    <input id="amount" name="amount" inputmode="decimal" autocomplete="off" dir="ltr" pattern="[0-9]+([.][0-9]+)?">
    <div class="keys">${digits.map((d) => `<button type="button" class="key" data-key="${d}">${d}</button>`).join('')}<button type="button" class="key" data-key="back" aria-label="${e(m.t('pos.backspace'))}">⌫</button></div>
    <button type="button" class="link" id="amount-clear">${e(m.t('pos.clear'))}</button>
  </section>`;
  const cart = keypadOnly ? '' : `<section id="cart" aria-labelledby="cart-heading">
    <h2 id="cart-heading">${e(m.t('pos.cart'))}</h2>
    <p id="cart-empty">${e(m.t('pos.emptyCart'))}</p>
    <ul id="cart-lines"></ul>
  </section>`;
  const tips = presets.length === 0 && !customTip ? '' : `<fieldset id="tips">
    <legend>${e(m.t('pos.tip'))}</legend>
    <label class="tip"><input type="radio" name="tip" value="" checked> ${e(m.t('pos.noTip'))}</label>
    ${presets.map((p) => `<label class="tip"><input type="radio" name="tip" value="${p}"> <span dir="ltr">${p} %</span></label>`).join('')}
    ${customTip ? `<label class="tip"><input type="radio" name="tip" value="custom"> ${e(m.t('pos.customTip'))}</label>
    <label for="tip-amount">${e(m.t('pos.tipAmount', { currency: cur }))}</label>
    <input id="tip-amount" name="tip-amount" inputmode="decimal" autocomplete="off" dir="ltr" pattern="[0-9]+([.][0-9]+)?">` : ''}
  </fieldset>`;
  const body = `<main id="pos" class="pos" data-id="${e(app.public_id)}" data-currency="${e(cur)}" data-decimals="${orderMinorUnits(cur)}">
  <header class="no-print">
    <h1 id="pos-title"><bdi>${e(app.title)}</bdi></h1>
    ${app.description !== null ? `<p class="lede"><bdi>${e(app.description)}</bdi></p>` : ''}
  </header>
  <section id="sale" aria-label="${e(m.t('pos.sale'))}">
    <div class="sale-grid">
      <div class="pick">${itemList}${keypadHtml}</div>
      <div class="bill">
        ${cart}
        ${tips}
        <dl class="totals">
          <div><dt>${e(m.t('pos.subtotal'))}</dt><dd dir="ltr"><span id="subtotal">0</span> ${e(cur)}</dd></div>
          <div><dt>${e(m.t('pos.tip'))}</dt><dd dir="ltr"><span id="tip-total">0</span> ${e(cur)}</dd></div>
          <div class="grand"><dt>${e(m.t('pos.total'))}</dt><dd dir="ltr"><span id="total">0</span> ${e(cur)}</dd></div>
        </dl>
        <button type="button" class="button charge" id="charge">${e(m.t('pos.charge'))}</button>
        <p id="charge-error" class="error" role="alert" data-refused="${e(m.t('pos.refused', { reason: '{reason}' }))}" data-busy="${e(m.t('pos.busy'))}" data-offline="${e(m.t('common.serverUnreachableRetrying'))}"></p>
      </div>
    </div>
  </section>
  <section id="checkout" aria-labelledby="checkout-heading" hidden
    data-waiting="${e(m.t('payment.headline.waitingForPayment'))}" data-paid="${e(m.t('payment.paymentReceived'))}"
    data-expired="${e(m.t('payment.headline.guaranteedAmountExpired'))}" data-offline="${e(m.t('common.serverUnreachableRetrying'))}"
    data-short="${e(m.t('payment.headline.seenButNotEnough'))}" data-countdown-expired="${e(m.t('common.countdownExpired'))}">
    <h2 id="checkout-heading">${e(m.t('pos.checkout'))}</h2>
    <p class="big" dir="ltr"><span id="co-fiat"></span> ${e(cur)}</p>
    <figure class="qr"><img id="qr-image" alt="" width="320" height="320"><figcaption>${e(m.t('common.scanWithWallet'))}</figcaption></figure>
    <dl class="totals">
      <div><dt>${e(m.t('common.amountToSend'))}</dt><dd dir="ltr"><span id="co-btc"></span> BTC</dd></div>
      <div><dt>${e(m.t('common.toThisAddress'))}</dt><dd><code id="co-address" dir="ltr"></code></dd></div>
    </dl>
    <p>${withCountdown(m, '')}</p>
    <p id="co-status" class="status" role="status" aria-live="polite"></p>
    <p id="co-offline" class="error" hidden>${e(m.t('common.serverUnreachableRetrying'))}</p>
    <button type="button" class="button secondary" id="co-new">${e(m.t('pos.newSale'))}</button>
  </section>
  <section id="receipt" aria-labelledby="receipt-heading" hidden>
    <h2 id="receipt-heading">${e(m.t('pos.receipt'))}</h2>
    <p class="shop"><bdi>${e(app.title)}</bdi></p>
    <table id="rc-lines"><thead><tr><th scope="col">${e(m.t('pos.items'))}</th><th scope="col">×</th><th scope="col">${e(m.t('request.amount'))} (${e(cur)})</th></tr></thead><tbody></tbody></table>
    <dl class="totals">
      <div><dt>${e(m.t('pos.subtotal'))}</dt><dd dir="ltr"><span id="rc-subtotal"></span> ${e(cur)}</dd></div>
      <div><dt>${e(m.t('pos.tip'))}</dt><dd dir="ltr"><span id="rc-tip"></span> ${e(cur)}</dd></div>
      <div class="grand"><dt>${e(m.t('pos.total'))}</dt><dd dir="ltr"><span id="rc-total"></span> ${e(cur)}</dd></div>
      <div><dt>${e(m.t('common.amountToSend'))}</dt><dd dir="ltr"><span id="rc-btc"></span> BTC</dd></div>
      <div><dt>${e(m.t('pos.rate'))}</dt><dd dir="ltr"><span id="rc-rate"></span> ${e(cur)}/BTC</dd></div>
      <div><dt>${e(m.t('payment.transactionIds'))}</dt><dd><code id="rc-txid" dir="ltr"></code></dd></div>
    </dl>
    <div class="no-print">
      <button type="button" class="button secondary" id="print">${e(m.t('pos.print'))}</button>
      <form id="receipt-mail" class="mail">
        <label for="receipt-email">${e(m.t('form.yourEmailAddress'))}</label>
        <input id="receipt-email" name="email" type="email" autocomplete="email" dir="ltr">
        <button type="submit" class="button secondary">${e(m.t('form.emailMeReceipt'))}</button>
      </form>
      <p id="mail-status" role="status" data-sent="${e(m.t('pos.receiptSent'))}"></p>
      <button type="button" class="button" id="rc-new">${e(m.t('pos.newSale'))}</button>
    </div>
  </section>
</main>
<div class="no-print">${languagePicker(m)}</div>`;
  return documentHtml(app.title, { css: assets.posCss, js: assets.posJs }, body, true, assets.posJs, m);
}

export function renderPosNotFound(m: Messages, assets: PosAssetUrls): string {
  const title = m.t('pos.notFoundTitle');
  return documentHtml(title, { css: assets.posCss, js: assets.posJs }, `<main class="card" id="not-found"><h1>${e(title)}</h1><p>${e(m.t('pos.notFoundText'))}</p></main>\n${languagePicker(m)}`, false, assets.posJs, m);
}
