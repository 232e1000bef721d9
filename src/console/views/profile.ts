// The profile page (INTERFACE.md 2.9): the login e-mail, the editable fields, and the login history.
import { escapeHtml as e } from '../../pages/html.ts';
import type { AuditRecord } from '../../security/audit.ts';
import { consolePage, csrfField, when, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

const ACTIONS: Record<string, string> = {
  otp_sent: 'Sign-in code sent',
  otp_failed: 'Wrong sign-in code',
  otp_locked: 'Code locked after wrong tries',
  login: 'Signed in',
  login_refused: 'Sign-in refused',
  logout: 'Signed out',
  rate_limited: 'Too many attempts',
  login_locked: 'Sign-in locked after 100 wrong codes in a row',
  login_unlocked: 'Sign-in lock lifted by the operator',
};

/** The profile page. */
export function renderProfile(
  base: Base,
  profile: { email: string; firstname: string | null; lastname: string | null; mobile: string | null; country: string | null },
  logins: AuditRecord[],
): string {
  const field = (name: string, label: string, value: string | null, type = 'text', autocomplete = 'off') =>
    `<div class="field"><label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" maxlength="100" autocomplete="${autocomplete}" value="${e(value ?? '')}"></div>`;
  const body = `<section class="panel" aria-labelledby="p-h">
  <h2 id="p-h">Your details</h2>
  <p>Signed in as <strong>${e(profile.email)}</strong> (your login; it cannot be changed here).</p>
  <form method="post" action="/console/profile" class="form">
    ${csrfField(base.user!.csrf)}
    <div class="row">
      ${field('firstname', 'First name', profile.firstname, 'text', 'given-name')}
      ${field('lastname', 'Last name', profile.lastname, 'text', 'family-name')}
    </div>
    <div class="row">
      ${field('mobile', 'Mobile phone', profile.mobile, 'tel', 'tel')}
      ${field('country', 'Country', profile.country, 'text', 'country-name')}
    </div>
    <button type="submit" class="button">Save profile</button>
  </form>
</section>
<section class="panel" aria-labelledby="l-h">
  <h2 id="l-h">Sign-in history</h2>
  ${
    logins.length
      ? `<div class="table-wrap"><table id="logins"><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">From</th></tr></thead><tbody>
${logins.map((l) => `<tr><td>${e(when(l.at))}</td><td>${e(ACTIONS[l.action] ?? l.action)}</td><td>${e(l.ip ?? '')}</td></tr>`).join('\n')}
</tbody></table></div>`
      : '<p>No sign-ins recorded.</p>'
  }
</section>`;
  return consolePage({ ...base, title: 'Profile', section: 'profile' }, body);
}
