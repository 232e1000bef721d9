// Refund page: posts the payer's address to operation 25 and shows the answer. Writes text with
// textContent only; no inline code (strict CSP).
'use strict';

(function () {
  var dataEl = document.getElementById('page-data');
  if (!dataEl) return;
  var state = JSON.parse(dataEl.textContent);
  function $(id) { return document.getElementById(id); }
  var form = $('refund-form');
  if (!form) return;

  function show(status, txid, address) {
    form.hidden = true;
    $('refund-result').hidden = false;
    $('refund-address').textContent = address;
    if (txid) {
      $('refund-txid').textContent = txid;
      $('txid-field').hidden = false;
    }
    $('refund').setAttribute('data-status', status);
    $('status-headline').textContent = status === 'Processing' ? 'Refund sent' : 'Refund scheduled';
    $('status-detail').textContent = status === 'Processing'
      ? 'The refund transaction is on its way; it confirms in about 10 minutes to an hour.'
      : 'The refund will be sent to the address below.';
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var address = $('refund-addr').value.trim();
    var error = $('form-error');
    if (address === '') { error.textContent = 'Enter your bitcoin address.'; return; }
    var button = $('refund-submit');
    button.disabled = true;
    error.textContent = '';
    fetch(state.api, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refund_form_token: state.token, refund_addr: address }),
    })
      .then(function (res) { return res.json(); })
      .then(function (answer) {
        if (answer && answer['return'] === '0' && answer.refund) {
          show(answer.refund.status, answer.refund.tx_id, address);
        } else {
          error.textContent = (answer && answer.status) || 'The address was not accepted.';
          button.disabled = false;
        }
      })
      .catch(function () {
        error.textContent = 'The address could not be sent. Check your connection and try again.';
        button.disabled = false;
      });
  });
})();
