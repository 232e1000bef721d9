// The console's page skeleton: one document per page, the stylesheet and script as files (strict CSP, nothing
// inline), a skip link, the navigation and the sign-out form, and a message area. Every value is escaped here
// or by the views that build `body`.
import { escapeHtml as e } from '../../pages/html.ts';
import { CSRF_FIELD } from '../console-security.ts';
import type { Can } from '../../teams/visibility.ts';

/** URLs of the console's stylesheet and script (with content hashes). */
export interface ConsoleAssetUrls {
  css: string;
  js: string;
}

/** Which section of the navigation a page belongs to. */
export type Section = 'wallets' | 'orders' | 'requests' | 'buttons' | 'pos' | 'refunds' | 'payouts' | 'reports' | 'profile' | 'none';

/** What every page shows around its content. */
export interface Shell {
  title: string;
  assets: ConsoleAssetUrls;
  /** The signed-in merchant (null on the sign-in pages); `can`: what their roles allow, to offer only that. */
  user: { email: string; csrf: string; can?: Can } | null;
  section: Section;
  /** A message after a change: a confirmation or an error. */
  flash?: { kind: 'ok' | 'error'; text: string } | null;
}

/** Navigation entries, each offered only when some role of the member allows what the page is for. */
const NAV: [Exclude<Section, 'none'>, string, string, ((can: Can) => boolean) | null][] = [
  ['wallets', '/console/wallets', 'Wallets', null],
  ['orders', '/console/orders', 'Payments', (can) => can('view_payments')],
  ['requests', '/console/requests', 'Requests', (can) => can('create_payments')],
  ['buttons', '/console/buttons', 'Pay buttons', (can) => can('change_settings')],
  ['pos', '/console/pos', 'Point of sale', (can) => can('use_pos') || can('change_settings')],
  ['refunds', '/console/refunds', 'Refunds', (can) => can('refund') || can('spend')],
  ['payouts', '/console/payouts', 'Payouts', (can) => can('spend')],
  ['reports', '/console/reports', 'Reports', (can) => can('view_reports')],
  ['profile', '/console/profile', 'Profile', null],
];

/** Whether the shell's user may be offered an action (everything when the page did not say: the server decides). */
export function offers(shell: Pick<Shell, 'user'>, action: Parameters<Can>[0], apiId?: string): boolean {
  const can = shell.user?.can;
  return can === undefined || can(action, apiId);
}

/** The hidden CSRF field every state-changing form carries. */
export function csrfField(csrf: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${e(csrf)}">`;
}

/** A whole console page. */
export function consolePage(shell: Shell, body: string): string {
  const nav = shell.user
    ? `<nav class="nav" aria-label="Console">
  <ul>
${NAV.filter(([, , , shown]) => shown === null || shell.user?.can === undefined || shown(shell.user.can)).map(([id, href, label]) => `    <li><a href="${href}"${shell.section === id ? ' aria-current="page"' : ''}>${label}</a></li>`).join('\n')}
  </ul>
  <form method="post" action="/console/logout" class="signout">
    ${csrfField(shell.user.csrf)}
    <span class="who">${e(shell.user.email)}</span>
    <button type="submit" class="button secondary">Sign out</button>
  </form>
</nav>`
    : '';
  const flash = shell.flash
    ? `<div class="flash ${shell.flash.kind}" role="${shell.flash.kind === 'error' ? 'alert' : 'status'}"><p>${e(shell.flash.text)}</p></div>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${e(shell.title)} · satgate console</title>
<link rel="stylesheet" href="${e(shell.assets.css)}">
<script src="${e(shell.assets.js)}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <p class="brand"><a href="/console/">satgate console</a></p>
  ${nav}
</header>
<main id="main" tabindex="-1">
<h1>${e(shell.title)}</h1>
${flash}
${body}
</main>
</body>
</html>
`;
}

/** A date-time as the console writes it: `2026-11-23 07:45 UTC`. */
export function when(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A status as a labelled badge (colour comes from the stylesheet by status). */
export function statusBadge(status: string): string {
  return `<span class="badge" data-status="${e(status)}">${e(status.replace(/_/g, ' '))}</span>`;
}
