// Refund page: posts the payer's address to operation 25 and shows the answer. Writes text with
// textContent only, in the words the page hands it (#page-data); no inline code (strict CSP).
'use strict';

(function () {
  var dataEl = document.getElementById('page-data');
  if (!dataEl) return;
  var state = JSON.parse(dataEl.textContent);
  function $(id) { return document.getElementById(id); }
  var form = $('refund-form');
  if (!form) return;

  // Whether the address begins as this network's addresses do (bech32 may be written in capitals).
  function ofThisNetwork(address) {
    var lower = address.toLowerCase();
    return state.prefixes.some(function (p) { return lower.indexOf(p) === 0; });
  }

  function show(status, txid, address) {
    form.hidden = true;
    $('refund-result').hidden = false;
    $('refund-address').textContent = address;
    if (txid) {
      $('refund-txid').textContent = txid;
      $('txid-field').hidden = false;
    }
    $('refund').setAttribute('data-status', status);
    var words = status === 'Processing' ? state.copy.processing : state.copy.scheduled;
    $('status-headline').textContent = words.headline;
    $('status-detail').textContent = words.detail;
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var address = $('refund-addr').value.trim();
    var error = $('form-error');
    if (address === '') { error.textContent = state.copy.enterAddress; return; }
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
          error.textContent = ofThisNetwork(address) ? state.copy.notAccepted : state.copy.otherNetwork;
          button.disabled = false;
        }
      })
      .catch(function () {
        error.textContent = state.copy.notSent;
        button.disabled = false;
      });
  });
})();
