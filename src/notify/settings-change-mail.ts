/** The outbox event of a wallet settings change made without a sign-in (add_pub on a registered key). */
export const SETTINGS_CHANGED_EVENT = 'wallet_settings_changed';

/** One changed setting, as the audit trail and the notice carry it. */
export interface SettingChange {
  from: string | null;
  to: string | null;
}

const LABELS: Record<string, string> = {
  notification_email: 'Notification e-mail',
  account_name: 'Name shown to payers',
  local_currency: 'Local currency',
  account_type: 'Account type',
  wallet_type: 'Address type',
  info: 'Info',
};

function shown(field: string, value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  const text = String(value);
  if (field === 'local_currency') return text.toUpperCase();
  // Quoted with escapes: a name is whatever the caller posted, control characters and line breaks included.
  if (field === 'account_name' || field === 'account_type') return JSON.stringify(text);
  return text;
}

function line(field: string, change: SettingChange): string {
  const label = LABELS[field] ?? field;
  // The info text can be long and is not shown to anyone: say that it changed, not what it says.
  if (field === 'info') return `  ${label}: changed`;
  return `  ${label}: ${shown(field, change.from)} -> ${shown(field, change.to)}`;
}

/**
 * The notice mailed to a wallet's previous notification address when add_pub, which needs no sign-in, changed its
 * settings: what changed and to what, when and from where, and how the owner undoes it. Values the caller posted
 * stay out of the subject; lines stay short enough for 7-bit plain text.
 */
export function renderSettingsChangeMail(event: Record<string, unknown>): { subject: string; text: string } {
  const apiId = String(event.api_id ?? '');
  const changes = (event.changes ?? {}) as Record<string, SettingChange>;
  const at = typeof event.changed_at === 'string' ? `${event.changed_at.slice(0, 10)} ${event.changed_at.slice(11, 16)} UTC` : 'just now';
  const newEmail = changes.notification_email?.to ?? null;
  const lines = [
    'Hello,',
    '',
    `The settings of your satgate wallet ${apiId}`,
    `were changed on ${at} through add_pub, a wallet API call`,
    `that needs no sign-in${typeof event.ip === 'string' ? `, from the IP address ${event.ip}` : ''}:`,
    '',
    ...Object.entries(changes).map(([field, change]) => line(field, change)),
    '',
    ...(changes.notification_email
      ? [newEmail === null ? 'Notifications about this wallet are no longer e-mailed.' : `Notifications about this wallet now go to ${newEmail};`, 'this address gets no more of them.', '']
      : []),
    'If you made this change, nothing needs doing.',
    '',
    'If you did not make this change, undo it: sign in to the merchant',
    `console at ${String(event.console_url ?? '')} with this e-mail address,`,
    "open the wallet and set its settings back. If the wallet is not in",
    'your console yet, add its key there (that works when the key was',
    'first registered with this address); otherwise ask the operator of',
    'this service to associate the wallet with your e-mail.',
    '',
    "The wallet's webhook URL (return_url) cannot be changed this way:",
    'only a signed-in owner changes it, in the console.',
  ];
  return { subject: `[satgate] Settings of wallet ${apiId} were changed`, text: `${lines.join('\n')}\n` };
}
