// The key-authorization page's HTML (GET /api-keys/authorize and its steps), rendered on the server with every
// dynamic string escaped; no inline script or style (the one script, which posts the approval on, is a file).
import { escapeHtml as e } from '../pages/html.ts';

/** What the application asked for (the query of /api-keys/authorize), carried through every step. */
export interface AuthorizeRequest {
  applicationName: string;
  applicationIdentifier: string | null;
  redirect: string | null;
  permissions: string[];
  strict: boolean;
  selectiveStores: boolean;
}

/** The request as hidden form fields, so each step posts it back unchanged. */
function hidden(req: AuthorizeRequest): string {
  const fields: string[] = [`<input type="hidden" name="applicationName" value="${e(req.applicationName)}">`];
  if (req.applicationIdentifier !== null) fields.push(`<input type="hidden" name="applicationIdentifier" value="${e(req.applicationIdentifier)}">`);
  if (req.redirect !== null) fields.push(`<input type="hidden" name="redirect" value="${e(req.redirect)}">`);
  for (const p of req.permissions) fields.push(`<input type="hidden" name="permissions" value="${e(p)}">`);
  fields.push(`<input type="hidden" name="strict" value="${req.strict}">`, `<input type="hidden" name="selectiveStores" value="${req.selectiveStores}">`);
  return fields.join('\n');
}

function page(title: string, body: string, script = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>${script ? '\n<script src="/api-keys/authorize.js" defer></script>' : ''}</head>
<body><main>
<h1>${e(title)}</h1>
${body}
</main></body></html>`;
}

/** Step 1: sign in with the e-mail of your dashboard profile. */
export function emailStep(req: AuthorizeRequest, error: string | null): string {
  return page(
    `Authorize ${req.applicationName}`,
    `${error ? `<p role="alert">${e(error)}</p>` : ''}
<p><strong>${e(req.applicationName)}</strong> asks for an API key to one of your satgate stores. Sign in first: we e-mail you a login code.</p>
<form method="post" action="/api-keys/authorize/code">
${hidden(req)}
<label>E-mail <input type="email" name="email" required autocomplete="email"></label>
<button type="submit">Send me a code</button>
</form>`,
  );
}

/** Step 2: the mailed code. */
export function codeStep(req: AuthorizeRequest, email: string, error: string | null): string {
  return page(
    `Authorize ${req.applicationName}`,
    `${error ? `<p role="alert">${e(error)}</p>` : ''}
<p>If ${e(email)} belongs to a satgate profile, a 6-digit code is on its way.</p>
<form method="post" action="/api-keys/authorize/sign-in">
${hidden(req)}
<input type="hidden" name="email" value="${e(email)}">
<label>Code <input name="otp" inputmode="numeric" pattern="[0-9]{6}" required autocomplete="one-time-code"></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** Step 3: what is asked, the store to grant it for, approve or refuse. */
export function consentStep(
  req: AuthorizeRequest,
  email: string,
  stores: { id: string; name: string }[],
  csrf: string,
  unknownPermissions: string[],
): string {
  const redirectHost = req.redirect ? new URL(req.redirect).host : null;
  const storeChoice =
    stores.length === 0
      ? '<p role="alert">Your profile has no stores (wallets) yet, so there is nothing to authorize.</p>'
      : `<fieldset><legend>Store</legend>
${stores.map((s, i) => `<label><input type="radio" name="storeId" value="${e(s.id)}"${i === 0 ? ' checked' : ''}> ${e(s.name)} <code>${e(s.id)}</code></label>`).join('<br>\n')}
</fieldset>`;
  return page(
    `Authorize ${req.applicationName}`,
    `<p>Signed in as ${e(email)}.</p>
<p><strong>${e(req.applicationName)}</strong> asks for these permissions on one store:</p>
<ul>${req.permissions.map((p) => `<li><code>${e(p)}</code></li>`).join('')}</ul>
${unknownPermissions.length > 0 ? `<p>satgate does not have, and will not grant: ${unknownPermissions.map((p) => `<code>${e(p)}</code>`).join(', ')}.</p>` : ''}
${redirectHost ? `<p>On approval the key is sent to <strong>${e(redirectHost)}</strong>.</p>` : '<p>On approval the key is shown here, once.</p>'}
<form method="post" action="/api-keys/authorize/decide">
${hidden(req)}
<input type="hidden" name="csrf" value="${e(csrf)}">
${storeChoice}
${stores.length > 0 ? '<button type="submit" name="decision" value="approve">Approve</button>' : ''}
<button type="submit" name="decision" value="refuse">Refuse</button>
</form>`,
  );
}

/** After approval with a redirect: a form posting the key to the application (sent on by the script, or a click). */
export function handOffStep(req: AuthorizeRequest, redirect: string, fields: { apiKey: string; userId: string; permissions: string[] }): string {
  return page(
    `Authorized ${req.applicationName}`,
    `<p>Returning to ${e(new URL(redirect).host)} with the new key…</p>
<form id="hand-off" method="post" action="${e(redirect)}">
<input type="hidden" name="apiKey" value="${e(fields.apiKey)}">
<input type="hidden" name="userId" value="${e(fields.userId)}">
${fields.permissions.map((p) => `<input type="hidden" name="permissions[]" value="${e(p)}">`).join('\n')}
<button type="submit">Continue</button>
</form>`,
    true,
  );
}

/** After approval without a redirect: the key, shown once. */
export function shownKeyStep(req: AuthorizeRequest, apiKey: string, storeId: string): string {
  return page(
    `Authorized ${req.applicationName}`,
    `<p>The API key for store <code>${e(storeId)}</code> (shown once; satgate keeps only its hash):</p>
<p><code>${e(apiKey)}</code></p>`,
  );
}

/** After refusal: nothing was created or sent. */
export function refusedStep(req: AuthorizeRequest): string {
  return page(
    `Refused ${req.applicationName}`,
    `<p>No key was created and nothing was sent to ${e(req.applicationName)}.${req.redirect ? ` <a href="${e(req.redirect)}">Return to the application</a>.` : ''}</p>`,
  );
}

/** A request this page cannot serve (a bad redirect, no permissions). */
export function badRequestPage(message: string): string {
  return page('Cannot authorize', `<p role="alert">${e(message)}</p>`);
}

/** The hand-off script: submits the approval form on load (the page's CSP allows only script files). */
export const HAND_OFF_SCRIPT = "document.getElementById('hand-off')?.submit();\n";
