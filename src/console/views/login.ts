// The sign-in pages: ask for the e-mail, then for the six-digit code mailed to it (operations 18 and 19).
import { escapeHtml as e } from '../../pages/html.ts';
import { consolePage, when, type ConsoleAssetUrls } from './layout.ts';

type Flash = { kind: 'ok' | 'error'; text: string } | null;

/** Step 1: the e-mail form. */
export function renderEmailStep(assets: ConsoleAssetUrls, opts: { email?: string; flash?: Flash } = {}): string {
  const body = `<section class="panel narrow">
  <p>Sign in with your e-mail address. We send you a code; no password needed.</p>
  <form method="post" action="/console/login" class="form">
    <div class="field">
      <label for="email">E-mail address</label>
      <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${e(opts.email ?? '')}">
    </div>
    <button type="submit" class="button">Send me a sign-in code</button>
  </form>
</section>`;
  return consolePage({ title: 'Sign in', assets, user: null, section: 'none', flash: opts.flash ?? null }, body);
}

/** Step 2: the code form; `validUntil` (epoch ms) when the code in hand was sent earlier. */
export function renderCodeStep(assets: ConsoleAssetUrls, email: string, flash: Flash = null, validUntil?: number): string {
  const valid = validUntil === undefined ? 'It is valid for 10 minutes.' : `It is valid until ${e(when(validUntil))}.`;
  const body = `<section class="panel narrow">
  <p>We sent a six-digit code to <strong id="code-email">${e(email)}</strong>. ${valid}</p>
  <form method="post" action="/console/login/code" class="form">
    <input type="hidden" name="email" value="${e(email)}">
    <div class="field">
      <label for="otp">Sign-in code</label>
      <input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    </div>
    <div class="field check">
      <input id="remember" name="remember" type="checkbox" value="1">
      <label for="remember">Keep me signed in for 7 days on this device</label>
    </div>
    <button type="submit" class="button">Sign in</button>
  </form>
  <p><a href="/console/login">Use another e-mail address or get a new code</a></p>
</section>`;
  return consolePage({ title: 'Enter your code', assets, user: null, section: 'none', flash }, body);
}
