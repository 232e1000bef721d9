// Payment form page: takes the payer's fields, then follows the payment without reloading.
// Reads its state from the #form-data JSON block; writes text with textContent only (merchant
// strings never become markup); amounts stay decimal strings, never floating point. Served with common.js
// in front (copy buttons, countdown, poll on return: `satgatePage`).
'use strict';

(function () {
  var dataEl = document.getElementById('form-data');
  if (!dataEl) return;
  var state = JSON.parse(dataEl.textContent);
  var copy = state.copy;
  var view = state.view;
  var clockOffset = state.server_now_ms - Date.now();
  var pollTimer = null;
  var pollDelay = state.poll_ms;
  var redirectTimer = null;
  var qrFor = '';

  function $(id) { return document.getElementById(id); }
  function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
  function setShown(el, shown) { if (el) el.hidden = !shown; }
  function now() { return Date.now() + clockOffset; }
  function fill(template, values) {
    return template.replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }
  // A fiat amount (decimal string) in the page's locale with the digits it has, as the server writes it
  // (src/pages/messages.ts): the string goes to Intl whole, so no float holds it where the browser allows.
  function fiat(text) {
    if (!/^\d+(\.\d+)?$/.test(text)) return text;
    var dot = text.indexOf('.');
    var digits = dot < 0 ? 0 : text.length - dot - 1;
    try {
      return new Intl.NumberFormat(state.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(text);
    } catch (err) { return text; }
  }
  function detail(phase) {
    return fill(copy.details[phase], { remaining: fiat(view.remaining_order_amount), currency: view.order_currency });
  }
  function safeUrl(raw) {
    if (typeof raw !== 'string') return null;
    try {
      var u = new URL(raw);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch (err) { return null; }
  }

  function ensureQr(show) {
    var fig = $('qr');
    var key = view.address + '|' + view.crypto_amount_due;
    var img = $('qr-image');
    if (!show) { if (img) img.remove(); qrFor = ''; return; }
    if (img && qrFor === key) return;
    if (!img) {
      img = document.createElement('img');
      img.id = 'qr-image';
      img.width = 256;
      img.height = 256;
      fig.insertBefore(img, fig.firstChild);
    }
    img.alt = fill(copy.qrAlt, { amount: view.crypto_amount_due, crypto_currency: view.crypto_currency, address: view.address });
    img.src = state.base + '/qrcode?width=512&a=' + encodeURIComponent(view.crypto_amount_due);
    qrFor = key;
  }

  function render() {
    var phase = view.phase;
    var paying = phase === 'pay' || phase === 'partly';
    $('form').setAttribute('data-phase', phase);
    setText($('status-headline'), copy.headlines[phase]);
    setText($('status-detail'), detail(phase));
    setShown($('fields-step'), phase === 'fields');
    setShown($('pay'), paying);
    ensureQr(paying && view.crypto_amount_due !== '0');
    setText($('amount-label'), phase === 'partly' ? copy.amountLabels.remaining : copy.amountLabels.due);
    setText($('crypto-amount'), view.crypto_amount_due);
    setText($('crypto-address'), view.address);
    setShown($('countdown-line'), paying);
    setShown($('refresh-step'), phase === 'partly-expired');
    setShown($('cancel-link'), phase !== 'paid');
    var done = $('complete-link');
    var target = safeUrl(view.complete_url);
    if (phase === 'paid' && target) {
      done.setAttribute('href', target);
      setShown(done, true);
      if (redirectTimer === null) redirectTimer = setTimeout(function () { window.location.assign(target); }, state.redirect_ms);
    } else {
      setShown(done, false);
    }
  }

  function tick() {
    setText($('countdown'), satgatePage.countdownText(view.expires_ms - now(), copy.expired));
    if ((view.phase === 'pay' || view.phase === 'partly') && now() >= view.expires_ms) schedulePoll(0);
  }

  function api(method, path, body) {
    var init = { method: method, cache: 'no-store', headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(state.base + path, init).then(function (res) {
      return res.json().then(function (json) {
        if (json['return'] !== '0') throw new Error(json.status || 'HTTP ' + res.status);
        return json;
      });
    });
  }

  function apply(next) {
    view = next.form;
    render();
  }

  function schedulePoll(delay) {
    if (pollTimer !== null) clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, delay);
  }

  function poll() {
    pollTimer = null;
    api('GET', '/state')
      .then(function (next) {
        setShown($('connection'), false);
        pollDelay = state.poll_ms;
        apply(next);
      })
      .catch(function () {
        setText($('connection'), copy.offline);
        setShown($('connection'), true);
        pollDelay = Math.min(pollDelay * 2, 30000);
      })
      .then(function () {
        if (view.phase !== 'paid' && view.phase !== 'expired') schedulePoll(pollDelay);
        else if (view.phase === 'paid' && view.payment_status !== 'confirmed') schedulePoll(pollDelay);
      });
  }

  $('fields-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var form = ev.currentTarget;
    if (!form.reportValidity()) return;
    var fields = {};
    for (var i = 0; i < view.user_fields.length; i++) {
      var name = view.user_fields[i].name;
      var el = $('field-' + name);
      if (el) fields[name] = el.value;
    }
    var body = { fields: fields };
    var email = $('user-email');
    if (email) body.user_email = email.value;
    var consent = $('receipt-consent');
    if (consent) body.receipt = consent.checked;
    var button = $('fields-submit');
    button.disabled = true;
    setText($('fields-error'), '');
    api('POST', '/fields', body)
      .then(apply)
      .catch(function () { setText($('fields-error'), copy.detailsNotAccepted); })
      .then(function () { button.disabled = false; });
  });

  $('refresh-button').addEventListener('click', function () {
    var button = $('refresh-button');
    button.disabled = true;
    setText($('refresh-error'), '');
    api('POST', '/refresh', {})
      .then(function (next) { apply(next); schedulePoll(state.poll_ms); })
      .catch(function () { setText($('refresh-error'), copy.refreshFailed); })
      .then(function () { button.disabled = false; });
  });

  satgatePage.bindCopyButtons(copy);
  satgatePage.onVisible(function () {
    if (pollTimer !== null) schedulePoll(0);
  });

  render();
  tick();
  setInterval(tick, 1000);
  if (view.phase !== 'expired') schedulePoll(Math.min(pollDelay, 1000));
  document.documentElement.setAttribute('data-page-ready', 'true');
})();
