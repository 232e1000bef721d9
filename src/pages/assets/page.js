// Hosted payment page: keeps the server-rendered page current without reloading it.
// Reads its state from the #page-data JSON block, polls operation 27 for the status, fetches
// operation 29 for an indicative amount after expiry, and writes text with textContent only.
// Money is exact: decimal strings and BigInt, never floating point. Served with common.js in front (copy
// buttons, countdown, poll on return: `satgatePage`).
'use strict';

(function () {
  var dataEl = document.getElementById('page-data');
  if (!dataEl) return;
  var state = JSON.parse(dataEl.textContent);
  var copy = state.copy;
  // Status groups come from the server (src/core/payment-statuses.ts), never a copy here.
  var PAID = state.statuses.paidInFull;
  var LESS = state.statuses.paidLess;
  var FINAL = state.statuses.final;
  var CRYPTO_SCALE = 8;
  var INDICATIVE_REFRESH_MS = 60000;
  var clockOffset = state.server_now_ms - Date.now();
  var record = {
    status: state.status,
    order_amount: state.order_amount,
    crypto_amount: state.crypto_amount,
    crypto_address: state.crypto_address,
    amounts: state.amounts,
    txids: state.txids,
  };
  var receivedKey = receivedAmountsKey(); // the amounts the txids were last read at
  var receivedLoading = false;
  var indicative = null; // { rate, at }
  var indicativeLoading = false;
  var pollDelay = state.poll_ms;
  var pollTimer = null;

  function $(id) { return document.getElementById(id); }
  function now() { return Date.now() + clockOffset; }
  function has(list, v) { return list.indexOf(v) !== -1; }
  function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
  function setShown(el, shown) { if (el) el.hidden = !shown; }
  function fill(template, values) {
    return template.replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  // Exact decimals: { u: BigInt units, s: scale }.
  function dec(text) {
    var m = /^(\d+)(?:\.(\d+))?$/.exec(String(text));
    if (!m) return { u: 0n, s: 0 };
    var f = m[2] || '';
    return { u: BigInt(m[1] + f), s: f.length };
  }
  function pow10(n) { return 10n ** BigInt(n); }
  function align(a, b) {
    var s = Math.max(a.s, b.s);
    return [a.u * pow10(s - a.s), b.u * pow10(s - b.s), s];
  }
  function add(a, b) { var x = align(a, b); return { u: x[0] + x[1], s: x[2] }; }
  function sub(a, b) { var x = align(a, b); return { u: x[0] > x[1] ? x[0] - x[1] : 0n, s: x[2] }; }
  function upTo(d, s) {
    if (s >= d.s) return { u: d.u * pow10(s - d.s), s: s };
    var f = pow10(d.s - s);
    return { u: (d.u + f - 1n) / f, s: s };
  }
  function divUp(a, b, s) {
    if (b.u === 0n) return null;
    var num = a.u * pow10(b.s + s);
    var den = b.u * pow10(a.s);
    return { u: (num + den - 1n) / den, s: s };
  }
  function mul(a, b) { return { u: a.u * b.u, s: a.s + b.s }; }
  function isZero(d) { return d.u === 0n; }
  function show(d) {
    var digits = d.u.toString();
    if (d.s === 0) return digits;
    digits = digits.padStart(d.s + 1, '0');
    return digits.slice(0, digits.length - d.s) + '.' + digits.slice(digits.length - d.s);
  }
  // A fiat amount with its currency's minor units, as src/money/fiat-display.ts shows it (digits beyond them kept),
  // then in the page's locale as the server writes it (src/i18n/message-format.ts): the string goes to Intl whole.
  function fiat(text) {
    var units = state.order_minor_units;
    var padded = text;
    if (typeof units === 'number') {
      var dot = text.indexOf('.');
      var fraction = dot < 0 ? '' : text.slice(dot + 1);
      if (fraction.length < units) padded = (dot < 0 ? text : text.slice(0, dot)) + '.' + fraction.padEnd(units, '0');
    }
    if (!state.locale || !/^-?\d+(\.\d+)?$/.test(padded)) return padded;
    var digits = padded.indexOf('.') < 0 ? 0 : padded.length - padded.indexOf('.') - 1;
    try {
      return new Intl.NumberFormat(state.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(padded);
    } catch (err) { return padded; }
  }
  // A JSON number literal ("0.0005", "5e-4") as a plain decimal string.
  function plain(literal) {
    var m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
    if (!m) return literal;
    var f = m[2] || '';
    var scale = f.length - (m[3] ? parseInt(m[3], 10) : 0);
    var units = BigInt(m[1] + f);
    if (scale < 0) { units *= pow10(-scale); scale = 0; }
    return show({ u: units, s: scale });
  }
  // Numbers keep their source text where the browser offers it, so amounts never become floats.
  function parseExact(text) {
    return JSON.parse(text, function (key, value, context) {
      if (typeof value !== 'number') return value;
      return plain(context && typeof context.source === 'string' ? context.source : String(value));
    });
  }
  function field(body, name) {
    var v = body[name + '_amount'];
    if (v === undefined) v = body[name + '_amt'];
    return v === undefined || v === null ? undefined : String(v);
  }

  // Funds seen so far, confirmed or not (the same sum as payment-view.ts's paidCrypto), without trailing zeros.
  function paidCrypto() {
    var a = record.amounts;
    var d = add(dec(a.confirmed_crypto_amount), dec(a.unconfirmed_crypto_amount));
    if (isZero(d)) return '';
    while (d.s > 0 && d.u % 10n === 0n) d = { u: d.u / 10n, s: d.s - 1 };
    return show(d);
  }
  function receivedAmountsKey() {
    var a = record.amounts;
    return [a.confirmed_crypto_amount, a.unconfirmed_crypto_amount].join('|');
  }

  function expired() { return state.expiry_ms !== null && now() >= state.expiry_ms; }

  // The same rules as src/pages/payment-view.ts.
  function view() {
    var status = record.status;
    var isExpired = expired();
    var less = has(LESS, status);
    var paid = has(PAID, status);
    var unpaid = !less && !paid && status !== 'invalid';
    var phase = status === 'invalid' ? 'invalid' : unpaid ? (isExpired ? 'unpaid-expired' : 'unpaid') : less && isExpired ? status + '-expired' : status;
    var a = record.amounts;
    var paidOrder = add(dec(a.confirmed_order_amount), dec(a.unconfirmed_order_amount));
    var order = dec(record.order_amount);
    var missingOrder = sub(order, paidOrder);
    var values = {
      order_currency: state.order_currency,
      crypto_currency: state.crypto_currency,
      missing_order: fiat(show(missingOrder)),
      extra_order: fiat(show(sub(paidOrder, order))),
    };
    var label = copy.amountLabels.due;
    var amount = show(upTo(dec(record.crypto_amount), CRYPTO_SCALE));
    var wantsIndicative = isExpired && (unpaid || less);
    if (less) {
      var paidCrypto = add(dec(a.confirmed_crypto_amount), dec(a.unconfirmed_crypto_amount));
      label = isExpired ? copy.amountLabels.indicativeRemaining : copy.amountLabels.remaining;
      amount = isExpired ? '' : show(upTo(sub(dec(record.crypto_amount), paidCrypto), CRYPTO_SCALE));
    } else if (wantsIndicative) {
      label = copy.amountLabels.indicative;
      amount = '';
    }
    var indicativeText = '';
    if (wantsIndicative) {
      if (indicative) {
        var crypto = indicativeCrypto(less ? missingOrder : order);
        if (crypto) amount = show(crypto);
        indicativeText = fill(copy.indicative, {
          rate: indicative.rate,
          order_currency: state.order_currency,
          crypto_currency: state.crypto_currency,
        });
      } else {
        indicativeText = indicativeLoading || indicative === null ? copy.fetchingIndicative : copy.indicativeUnavailable;
      }
    }
    var showPay = (unpaid || less) && record.crypto_address !== '';
    return {
      phase: phase,
      expired: isExpired,
      wantsIndicative: wantsIndicative,
      headline: copy.headlines[phase] || copy.headlines.unpaid,
      detail: fill(copy.details[phase] || copy.details.unpaid, values),
      indicativeText: indicativeText,
      label: label,
      amount: amount,
      showPay: showPay,
      showQr: showPay && unpaid && !isExpired,
      showCountdown: (unpaid || less) && !isExpired,
      showSuccess: paid,
      showCancel: unpaid || status === 'invalid',
    };
  }

  // Order-currency amount in crypto at the indicative rate, rounded up to the satoshi.
  function indicativeCrypto(orderAmount) {
    if (isZero(orderAmount)) return null;
    var rate = dec(indicative.rate);
    if (indicative.perCrypto) return divUp(orderAmount, rate, CRYPTO_SCALE);
    return upTo(mul(orderAmount, rate), CRYPTO_SCALE);
  }

  function ensureQr() {
    var fig = $('qr');
    if (!fig || $('qr-image')) return;
    var img = document.createElement('img');
    img.id = 'qr-image';
    img.width = 256;
    img.height = 256;
    img.alt = fill(copy.qrAlt, { amount: record.crypto_amount, crypto_currency: state.crypto_currency, address: record.crypto_address });
    img.src = state.api + '/qrcode?width=512';
    fig.insertBefore(img, fig.firstChild);
  }

  // The same URI as src/pages/wallet-uri.ts; only for a guaranteed amount, never an indicative one.
  function renderWalletLink(v) {
    var link = $('wallet-link');
    if (!link) return;
    var due = v.wantsIndicative ? '' : v.amount;
    var params = [];
    if (due !== '') params.push('amount=' + due);
    if (state.site_name.trim() !== '') params.push('label=' + encodeURIComponent(state.site_name));
    var uri = 'bitcoin:' + record.crypto_address + (params.length ? '?' + params.join('&') : '');
    if (link.getAttribute('href') !== uri) link.setAttribute('href', uri);
    setShown(link, due !== '' && record.crypto_address !== '');
  }

  // The same items as payment-page.ts's txidItem.
  function shortTxid(txid) { return txid.length <= 20 ? txid : txid.slice(0, 8) + '…' + txid.slice(-8); }
  function renderReceived() {
    var paid = paidCrypto();
    setShown($('paid'), paid !== '');
    setText($('paid-amount'), fill(copy.paid, { paid_crypto: paid, crypto_currency: state.crypto_currency }));
    var list = $('txids');
    if (!list) return;
    var shown = [];
    var codes = list.querySelectorAll('code.txid');
    for (var i = 0; i < codes.length; i++) shown.push(codes[i].getAttribute('data-full'));
    if (shown.join(',') !== record.txids.join(',')) {
      while (list.firstChild) list.removeChild(list.firstChild);
      record.txids.forEach(function (txid, index) {
        var item = document.createElement('li');
        var code = document.createElement('code');
        code.id = 'txid-' + index;
        code.className = 'txid';
        code.title = txid;
        code.setAttribute('data-full', txid);
        code.textContent = shortTxid(txid);
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'copy';
        button.setAttribute('data-copy', code.id);
        button.textContent = copy.copyTxid;
        item.appendChild(code);
        item.appendChild(document.createTextNode(' '));
        item.appendChild(button);
        list.appendChild(item);
      });
    }
    setShown($('txids-block'), record.txids.length > 0);
  }

  // Operation 27 carries no transaction IDs: read them from the page's own route whenever the funds seen change.
  function maybeFetchReceived() {
    var key = receivedAmountsKey();
    if (receivedLoading || key === receivedKey || paidCrypto() === '') return;
    receivedLoading = true;
    fetch(state.received, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(function (body) {
        if (!Array.isArray(body.txids)) return;
        record.txids = body.txids.filter(function (t) { return typeof t === 'string'; });
        receivedKey = key;
      })
      .catch(function () { /* tried again at the next poll */ })
      .then(function () {
        receivedLoading = false;
        renderReceived();
      });
  }

  function render() {
    var v = view();
    var main = $('payment');
    main.setAttribute('data-phase', v.phase);
    main.setAttribute('data-status', record.status);
    setText($('status-headline'), v.headline);
    setText($('status-detail'), v.detail);
    setText($('indicative'), v.indicativeText);
    setShown($('indicative'), v.indicativeText !== '');
    setShown($('pay'), v.showPay);
    if (v.showQr) ensureQr();
    setShown($('qr'), v.showQr);
    setText($('amount-label'), v.label);
    setText($('crypto-amount'), v.amount || '…');
    setText($('crypto-address'), record.crypto_address);
    renderWalletLink(v);
    setShown($('countdown-line'), v.showCountdown);
    setShown($('success-link'), v.showSuccess);
    setShown($('cancel-link'), v.showCancel);
    renderReceived();
    if (v.wantsIndicative) maybeFetchIndicative();
  }

  function tick() {
    if (state.expiry_ms !== null) setText($('countdown'), satgatePage.countdownText(state.expiry_ms - now(), copy.expired));
    render();
  }

  function maybeFetchIndicative() {
    if (indicativeLoading) return;
    if (indicative && Date.now() - indicative.at < INDICATIVE_REFRESH_MS) return;
    if (indicative === false && Date.now() - lastIndicativeTry < 10000) return;
    indicativeLoading = true;
    lastIndicativeTry = Date.now();
    fetch(state.api + '/exchange_rate', { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.text();
      })
      .then(function (text) {
        var body = parseExact(text);
        var rate = body.exchange_rate === undefined ? undefined : String(body.exchange_rate);
        var to = String(body.to_currency || '').toUpperCase();
        var from = String(body.from_currency || '').toUpperCase();
        var orderCur = String(state.order_currency).toUpperCase();
        if (!rate || isZero(dec(rate))) throw new Error('no rate');
        // Rate in order currency per bitcoin (BTC -> USD), or bitcoin per order-currency unit (USD -> BTC).
        indicative = { rate: rate, perCrypto: to === orderCur || from !== orderCur, at: Date.now() };
      })
      .catch(function () {
        if (!indicative) indicative = false;
      })
      .then(function () {
        indicativeLoading = false;
        render();
      });
  }
  var lastIndicativeTry = 0;

  function poll() {
    pollTimer = null;
    fetch(state.api, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) {
        if (res.status === 404) return { gone: true };
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.text().then(parseExact);
      })
      .then(function (body) {
        setShown($('connection'), false);
        pollDelay = state.poll_ms;
        if (body.gone) return 'stop';
        if (typeof body.status === 'string') record.status = body.status;
        if (body.crypto_address !== undefined) record.crypto_address = String(body.crypto_address);
        var crypto = field(body, 'crypto');
        if (crypto !== undefined) record.crypto_amount = crypto;
        var names = ['unconfirmed_crypto', 'confirmed_crypto', 'unconfirmed_order', 'confirmed_order'];
        for (var i = 0; i < names.length; i++) {
          var v = field(body, names[i]);
          if (v !== undefined) record.amounts[names[i] + '_amount'] = v;
        }
        render();
        maybeFetchReceived();
        return has(FINAL, record.status) ? 'stop' : 'go';
      })
      .catch(function () {
        setText($('connection'), copy.offline);
        setShown($('connection'), true);
        pollDelay = Math.min(pollDelay * 2, 30000);
        return 'go';
      })
      .then(function (next) {
        if (next === 'go') pollTimer = setTimeout(poll, pollDelay);
      });
  }

  satgatePage.bindCopyButtons(copy);
  satgatePage.onVisible(function () {
    if (pollTimer !== null) {
      clearTimeout(pollTimer);
      poll();
    }
  });

  tick();
  setInterval(tick, 1000);
  if (!has(FINAL, record.status)) pollTimer = setTimeout(poll, Math.min(pollDelay, 1000));
  document.documentElement.setAttribute('data-page-ready', 'true');
})();
