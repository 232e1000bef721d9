// The counter page (/pos/<id>): cart or keypad, tip, Charge, then the checkout polled until paid, then the receipt.
// Totals here are only a preview (exact, in minor units with BigInt); the server prices the charge from item codes
// and quantities and answers what it charged. The poll survives a flaky network: it retries with a growing delay
// (up to 30 s), says so, and goes back to every 2 s as soon as an answer comes.
(function () {
  'use strict';
  var root = document.getElementById('pos');
  if (!root) return;
  var id = root.getAttribute('data-id');
  var decimals = Number(root.getAttribute('data-decimals'));
  var base = '/pos/' + encodeURIComponent(id);
  var $ = function (s) { return document.getElementById(s); };
  var cart = new Map();
  var items = new Map();
  document.querySelectorAll('button.item').forEach(function (b) {
    items.set(b.getAttribute('data-code'), { name: b.getAttribute('data-name'), price: b.getAttribute('data-price'), stock: b.getAttribute('data-stock'), remove: b.getAttribute('data-remove') });
    b.addEventListener('click', function () { add(b.getAttribute('data-code'), 1); });
  });

  // Exact decimals as BigInt units of 10^-decimals.
  function units(text) {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(text || '')) return null;
    var p = text.split('.');
    var frac = (p[1] || '');
    if (frac.replace(/0+$/, '').length > decimals) return null;
    frac = (frac + '0'.repeat(decimals)).slice(0, decimals);
    return BigInt(p[0] + frac);
  }
  function show(u) {
    var s = u.toString().padStart(decimals + 1, '0');
    return decimals === 0 ? s : s.slice(0, -decimals) + '.' + s.slice(-decimals);
  }

  // A decimal from the server, padded to the currency's minor units ("5.5" → "5.50").
  function fmt(text) { var u = units(text); return u === null ? text : show(u); }

  function add(code, n) {
    var q = (cart.get(code) || 0) + n;
    var it = items.get(code);
    if (it.stock !== '' && q > Number(it.stock)) q = Number(it.stock);
    if (q <= 0) cart.delete(code); else cart.set(code, q);
    render();
  }

  function tipChoice() {
    var r = document.querySelector('input[name="tip"]:checked');
    if (!r || r.value === '') return null;
    if (r.value === 'custom') return { amount: ($('tip-amount').value || '').trim() };
    return { percent: Number(r.value) };
  }

  function render() {
    var list = $('cart-lines');
    var sub = 0n;
    if (list) {
      list.textContent = '';
      cart.forEach(function (q, code) {
        var it = items.get(code);
        var line = units(it.price) * BigInt(q);
        sub += line;
        var li = document.createElement('li');
        var label = document.createElement('span');
        label.textContent = q + ' × ' + it.name + ' — ' + show(line);
        var minus = document.createElement('button');
        minus.type = 'button'; minus.className = 'qty'; minus.textContent = '−';
        minus.setAttribute('aria-label', it.remove);
        minus.addEventListener('click', function () { add(code, -1); });
        li.appendChild(label); li.appendChild(minus);
        list.appendChild(li);
      });
      $('cart-empty').hidden = cart.size > 0;
    }
    var typed = $('amount') ? units(($('amount').value || '').trim()) : null;
    if (typed !== null) sub += typed;
    var tip = 0n;
    var t = tipChoice();
    if (t && 'percent' in t) tip = (sub * BigInt(t.percent) * 2n + 100n) / 200n; // half-up of sub × p / 100
    else if (t && units(t.amount) !== null) tip = units(t.amount);
    $('subtotal').textContent = show(sub);
    $('tip-total').textContent = show(tip);
    $('total').textContent = show(sub + tip);
  }

  if ($('amount')) {
    $('amount').addEventListener('input', render);
    document.querySelectorAll('.key').forEach(function (k) {
      k.addEventListener('click', function () {
        var a = $('amount'); var v = a.value; var key = k.getAttribute('data-key');
        a.value = key === 'back' ? v.slice(0, -1) : (key === '.' && v.indexOf('.') >= 0 ? v : v + key);
        render();
      });
    });
    $('amount-clear').addEventListener('click', function () { $('amount').value = ''; render(); });
  }
  document.querySelectorAll('input[name="tip"]').forEach(function (r) { r.addEventListener('change', render); });
  if ($('tip-amount')) $('tip-amount').addEventListener('input', function () {
    var c = document.querySelector('input[name="tip"][value="custom"]'); if (c) c.checked = true; render();
  });

  function screen(name) {
    ['sale', 'checkout', 'receipt'].forEach(function (s) { $(s).hidden = s !== name; });
    document.body.setAttribute('data-screen', name);
    var h = $(name === 'sale' ? 'pos-title' : name + '-heading');
    if (h) { h.setAttribute('tabindex', '-1'); h.focus(); }
  }

  var err = $('charge-error');
  $('charge').addEventListener('click', function () {
    var lines = [];
    cart.forEach(function (q, code) { lines.push({ code: code, quantity: q }); });
    var body = { lines: lines, tip: tipChoice() };
    var a = $('amount') ? ($('amount').value || '').trim() : '';
    if (a !== '') body.amount = a;
    err.textContent = '';
    $('charge').disabled = true;
    fetch(base + '/charges', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' })
      .then(function (r) { return r.json().then(function (j) { return { r: r, j: j }; }); })
      .then(function (x) {
        $('charge').disabled = false;
        if (x.r.status === 201) return checkout(x.j.reference);
        if (x.r.status === 429) { err.textContent = err.getAttribute('data-busy'); return; }
        var reason = String(x.j.status || '').replace(/^Wrong or missing argument: /, '');
        err.textContent = err.getAttribute('data-refused').replace('{reason}', reason);
      })
      .catch(function () { $('charge').disabled = false; err.textContent = err.getAttribute('data-offline'); });
  });

  var timer = null;
  var countdown = null;
  var current = null;
  function stop() { if (timer) clearTimeout(timer); if (countdown) clearInterval(countdown); timer = countdown = null; }

  function checkout(reference) {
    stop();
    current = reference;
    $('co-status').textContent = $('checkout').getAttribute('data-waiting');
    $('co-offline').hidden = true;
    $('qr-image').removeAttribute('src');
    screen('checkout');
    poll(reference, 0);
  }

  function poll(reference, failures) {
    fetch(base + '/charges/' + encodeURIComponent(reference), { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { if (!r.ok) throw new Error('status ' + r.status); return r.json(); })
      .then(function (j) {
        var s = j.charge;
        if (current !== reference) return;
        $('co-offline').hidden = true;
        update(s);
        if (s.state === 'paid') return receipt(s);
        // Expired: still watched, more slowly, so a late payment still turns to the receipt.
        timer = setTimeout(function () { poll(reference, 0); }, s.state === 'expired' ? 10000 : 2000);
      })
      .catch(function () {
        if (current !== reference) return;
        $('co-offline').hidden = false;
        var delay = Math.min(30000, 2000 * Math.pow(2, failures));
        timer = setTimeout(function () { poll(reference, failures + 1); }, delay);
      });
  }
  // Back online: ask at once rather than wait out the backoff.
  window.addEventListener('online', function () {
    if (current && !$('checkout').hidden) { if (timer) clearTimeout(timer); poll(current, 0); }
  });

  function update(s) {
    var co = $('checkout');
    $('co-fiat').textContent = fmt(s.cart.total);
    $('co-btc').textContent = s.btc;
    $('co-address').textContent = s.address;
    var img = $('qr-image');
    if (s.address && img.getAttribute('src') !== s.qr) {
      img.setAttribute('src', s.qr);
      img.setAttribute('alt', 'QR: ' + (s.uri || ''));
    }
    co.setAttribute('data-state', s.state);
    $('co-status').textContent = co.getAttribute('data-' + s.state);
    if (!countdown) {
      var end = Date.parse(s.expiresAt);
      var tick = function () {
        var left = Math.max(0, end - Date.now());
        var m = Math.floor(left / 60000), sec = Math.floor(left / 1000) % 60;
        $('countdown').textContent = left > 0 ? m + ':' + String(sec).padStart(2, '0') : co.getAttribute('data-countdown-expired');
      };
      tick();
      countdown = setInterval(tick, 1000);
    }
  }

  function receipt(s) {
    stop();
    var body = document.querySelector('#rc-lines tbody');
    body.textContent = '';
    var row = function (a, b, c) {
      var tr = document.createElement('tr');
      [a, b, c].forEach(function (v) { var td = document.createElement('td'); td.textContent = v; tr.appendChild(td); });
      body.appendChild(tr);
    };
    s.cart.lines.forEach(function (l) { row(l.name, String(l.quantity), fmt(l.total)); });
    if (s.cart.customAmount !== null) row($('amount') ? document.querySelector('label[for="amount"]').textContent : '', '1', fmt(s.cart.customAmount));
    $('rc-subtotal').textContent = fmt(s.cart.subtotal);
    $('rc-tip').textContent = fmt(s.cart.tip) + (s.cart.tipPercent !== null ? ' (' + s.cart.tipPercent + ' %)' : '');
    $('rc-total').textContent = fmt(s.cart.total);
    $('rc-btc').textContent = s.btc;
    $('rc-rate').textContent = s.rate;
    $('rc-txid').textContent = s.txids.join(' ');
    $('mail-status').textContent = '';
    screen('receipt');
  }

  function reset() {
    stop(); current = null; cart.clear();
    if ($('amount')) $('amount').value = '';
    var none = document.querySelector('input[name="tip"][value=""]'); if (none) none.checked = true;
    if ($('tip-amount')) $('tip-amount').value = '';
    err.textContent = '';
    render(); screen('sale');
  }
  $('co-new').addEventListener('click', reset);
  $('rc-new').addEventListener('click', reset);
  $('print').addEventListener('click', function () { window.print(); });
  $('receipt-mail').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var status = $('mail-status');
    fetch(base + '/charges/' + encodeURIComponent(current) + '/receipt', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: $('receipt-email').value.trim() }), credentials: 'same-origin' })
      .then(function (r) { return r.json().then(function (j) { return { r: r, j: j }; }); })
      .then(function (x) { status.textContent = x.r.status === 202 ? status.getAttribute('data-sent') : String(x.j.status || '').replace(/^Wrong or missing argument: /, ''); })
      .catch(function () { status.textContent = err.getAttribute('data-offline'); });
  });
  render();
})();
