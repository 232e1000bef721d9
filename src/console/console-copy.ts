// What the console says where the APIs' words would not serve a merchant: sign-in refusals without "OTP" or
// "/send_otp", a refused currency with the currencies that are accepted, what adding a wallet did, and which
// posted values may be written back into a form (never a secret).
import { DomainError } from '../core/domain-errors.ts';
import { looksLikePrivateKey } from '../dashboard/secret-text.ts';
import { messageOf } from './error-page.ts';

/** The dashboard API's words for code refusals (core/errors.ts 305 to 307), and what the console says instead. */
export function signInMessage(err: unknown): string {
  const text = messageOf(err);
  if (!(err instanceof DomainError)) return text;
  switch (err.kind) {
    case 'code-wrong': {
      // "Wrong OTP: 3 tries left for this code; …": the tries left and any wait are kept.
      const rest = text.replace(/^Wrong OTP:?\s*/, '');
      return `That code is not right; check the latest e-mail from us and type its six digits${rest ? ` (${rest})` : ''}.`;
    }
    case 'code-spent': {
      const why = text.replace(/^Wrong OTP, ask for an OTP again:?\s*/, '').replace(/^;\s*/, '');
      return `That code can no longer be used${why ? ` (${why})` : ''}. Ask for a new code.`;
    }
    case 'code-not-asked':
      return 'There is no open sign-in code for this address (it was already used, or none was asked for). Ask for a new code.';
    case 'profile-not-found':
      return 'No sign-in code was sent to this address yet. Ask for a code.';
    default:
      return text;
  }
}

/**
 * A wallet form's refusal as the page shows it: a local currency refused for want of a rate is said with the
 * currencies that are accepted (not "see /currencies"), and no posted value that looks like a private key is quoted.
 */
export function walletFormMessage(err: unknown, posted: Record<string, string | undefined>, accepted: readonly string[]): string {
  let text = messageOf(err);
  if (err instanceof DomainError && err.kind === 'unsupported-currency' && text.includes('/currencies')) {
    const list = accepted.length > 0 ? `Accepted here: ${accepted.join(', ')}.` : 'No currency has a current exchange rate right now; try again later.';
    const value = posted.local_currency ?? '';
    text = `The local currency ${looksLikePrivateKey(value) ? 'you entered' : JSON.stringify(value)} has no exchange rate here. ${list}`;
  }
  for (const value of Object.values(posted)) {
    if (value !== undefined && looksLikePrivateKey(value)) text = text.split(JSON.stringify(value)).join('(a private key)').split(value.trim()).join('(a private key)');
  }
  return text;
}

/** What a wallet change saved, as the confirmation says it. */
export function savedText(saved: readonly string[]): string {
  const name = saved.includes('account_name');
  const currency = saved.includes('local_currency');
  return name && currency ? 'name and currency saved' : name ? 'name saved' : currency ? 'local currency saved' : '';
}

/** The confirmation after adding a wallet: what happened, and what was saved on a key that was already registered. */
export function addedMessage(outcome: string, saved: readonly string[]): string | undefined {
  const what = savedText(saved);
  if (outcome === 'wallet_added') return what ? `Wallet added: ${what}.` : 'Wallet added.';
  if (outcome === 'wallet_updated') return `Wallet updated: ${what || 'settings saved'}.`;
  if (outcome === 'wallet_unchanged') return 'This wallet is already in your console; nothing was changed.';
  return undefined;
}

/** The add-wallet fields that may be shown again after a refusal: a private key (or what looks like one) never is. */
export function echoable(form: { pub: string; account_name: string; local_currency: string }, err: unknown): { pub: string; account_name: string; local_currency: string } {
  const secret = (v: string) => looksLikePrivateKey(v);
  const privateRefusal = err instanceof DomainError && err.kind === 'invalid-key' && /private/i.test(err.message);
  return {
    pub: form.pub === 'new_wallet' || privateRefusal || secret(form.pub) ? '' : form.pub,
    account_name: secret(form.account_name) ? '' : form.account_name,
    local_currency: secret(form.local_currency) ? '' : form.local_currency,
  };
}
