import type { MasterKey } from '../security/master-key.ts';

/** The outbox payload field that carries a whole message sealed with the master key. */
export const SEALED_MAIL_FIELD = 'mail_sealed';

/**
 * An outbox payload for a message that holds a secret (a login code, a refund link): the subject and text
 * are sealed with the master key, so the outbox row never holds the secret in clear. `event` names the kind.
 */
export function sealedMailPayload(masterKey: MasterKey, event: string, message: { subject: string; text: string }): Record<string, unknown> {
  return { event, [SEALED_MAIL_FIELD]: masterKey.seal(JSON.stringify({ subject: message.subject, text: message.text })) };
}

/** The message of a sealed payload, or null when the payload is not a sealed one. */
export function openSealedMail(masterKey: MasterKey, payload: Record<string, unknown>): { subject: string; text: string } | null {
  const sealed = payload[SEALED_MAIL_FIELD];
  if (typeof sealed !== 'string') return null;
  const message = JSON.parse(masterKey.unseal(sealed).toString('utf8')) as { subject: string; text: string };
  return { subject: message.subject, text: message.text };
}
