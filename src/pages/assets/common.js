// Browser helpers the hosted payment page (page.js) and the payment form page (form.js) share: the copy
// buttons, the countdown text and a poll when the tab comes back. Served in front of each of those two
// scripts (src/pages/page-assets.ts), so a page still loads one same-origin script; they reach it as
// `satgatePage`. Writes text with textContent only.
'use strict';

var satgatePage = (function () {
  function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }

  // "mm:ss" (or "h:mm:ss") for a remaining time in ms; `expiredText` at or below zero (as in payment-page.ts).
  function countdownText(ms, expiredText) {
    if (!(ms > 0)) return expiredText;
    var total = Math.ceil(ms / 1000);
    var h = Math.floor(total / 3600);
    var m = Math.floor((total % 3600) / 60);
    var sec = total % 60;
    var mmss = String(m).padStart(h > 0 ? 2 : 1, '0') + ':' + String(sec).padStart(2, '0');
    return h > 0 ? h + ':' + mmss : mmss;
  }

  // Each button[data-copy] copies the text of the element it names (its data-full when it shows a short form);
  // #copy-feedback says how it went in `copy`'s words. One listener on the document, so buttons a script adds later
  // (the hosted page's transaction list) copy too.
  function bindCopyButtons(copy) {
    function copyFrom(button) {
      var target = document.getElementById(button.getAttribute('data-copy'));
      var feedback = document.getElementById('copy-feedback');
      if (!target) return;
      var full = target.getAttribute('data-full');
      var text = full || target.textContent;
      function fallback() {
        // Selecting a short form would copy the short form: show the full text before selecting it.
        if (full) setText(target, full);
        var range = document.createRange();
        range.selectNodeContents(target);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        var ok = false;
        try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
        setText(feedback, ok ? copy.copied : copy.copyFallback);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { setText(feedback, copy.copied); }, fallback);
      } else {
        fallback();
      }
    }
    document.addEventListener('click', function (ev) {
      var button = ev.target && ev.target.closest ? ev.target.closest('button[data-copy]') : null;
      if (button) copyFrom(button);
    });
  }

  // Calls `visible` each time the tab is shown again (the page then polls at once instead of waiting).
  function onVisible(visible) {
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'visible') visible();
    });
  }

  return { countdownText: countdownText, bindCopyButtons: bindCopyButtons, onVisible: onVisible };
})();
