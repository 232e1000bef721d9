// Merchant console, progressive parts only: every page works without this script.
// 1. The payments list keeps its statuses fresh by polling /console/orders.json (same filters and page).
// 2. A signed PSBT chosen as a file is read into the text box beside it (base64), ready to submit.
'use strict';

(function () {
  var POLL_MS = 3000;

  function label(status) {
    return status.replace(/_/g, ' ');
  }

  function pollOrders(table) {
    var url = table.getAttribute('data-poll');
    var note = document.getElementById('live-note');
    var failures = 0;
    function tick() {
      fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) {
          if (res.status === 401) throw new Error('signed out');
          if (!res.ok) throw new Error('HTTP ' + res.status);
          return res.json();
        })
        .then(function (data) {
          failures = 0;
          (data.orders || []).forEach(function (o) {
            var row = table.querySelector('tr[data-key="' + o.kind + ':' + o.id + '"]');
            if (!row) return;
            var badge = row.querySelector('.badge');
            if (badge && badge.getAttribute('data-status') !== o.status) {
              badge.setAttribute('data-status', o.status);
              badge.textContent = label(o.status);
              if (note) note.textContent = 'Status of ' + (o.reference || '#' + o.id) + ' is now ' + label(o.status) + '.';
            }
          });
          setTimeout(tick, POLL_MS);
        })
        .catch(function (err) {
          failures += 1;
          if (String(err && err.message) === 'signed out') {
            if (note) note.textContent = 'Your session ended; reload the page to sign in again.';
            return;
          }
          // Back off while the server is away; keep trying.
          setTimeout(tick, Math.min(60000, POLL_MS * Math.pow(2, failures)));
        });
    }
    setTimeout(tick, POLL_MS);
  }

  function fileFillers() {
    var inputs = document.querySelectorAll('input[type="file"][data-fills]');
    Array.prototype.forEach.call(inputs, function (input) {
      input.addEventListener('change', function () {
        var file = input.files && input.files[0];
        var target = document.getElementById(input.getAttribute('data-fills'));
        if (!file || !target) return;
        var reader = new FileReader();
        reader.onload = function () {
          var bytes = new Uint8Array(reader.result);
          // A text file (base64 or hex) is used as it is; a binary PSBT becomes base64.
          var text = '';
          var isText = true;
          for (var i = 0; i < bytes.length; i++) {
            if (bytes[i] < 9 || (bytes[i] > 13 && bytes[i] < 32) || bytes[i] > 126) { isText = false; break; }
          }
          if (isText) {
            text = new TextDecoder().decode(bytes).trim();
          } else {
            var bin = '';
            for (var j = 0; j < bytes.length; j++) bin += String.fromCharCode(bytes[j]);
            text = btoa(bin);
          }
          target.value = text;
        };
        reader.readAsArrayBuffer(file);
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var table = document.getElementById('orders');
    if (table && table.getAttribute('data-poll')) pollOrders(table);
    fileFillers();
  });
})();
