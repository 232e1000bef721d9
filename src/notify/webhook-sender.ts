import type { Db } from '../db/database.ts';
import type { MasterKey } from '../security/master-key.ts';
import { safePost, SafePostError } from './ssrf-guard.ts';
import { SIGNATURE_HEADER, signWebhook } from './webhook-signature.ts';

/** The outcome of one delivery attempt. */
export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /**
   * True when retrying cannot help: the target is refused by the SSRF guard for what it is (loopback, private,
   * metadata, a bad scheme), not for a passing reason. A DNS failure or a timeout is not permanent.
   */
  permanent?: boolean;
}

/** Sends webhook events: signed with the wallet's secret(s), to a checked address, redirects not followed. */
export class WebhookSender {
  constructor(
    private readonly db: Db,
    private readonly masterKey: MasterKey,
    private readonly allowPrivate: boolean,
    private readonly timeoutMs = 10_000,
  ) {}

  /** The secrets to sign with now: the current one, and the previous one during its 24 h overlap. */
  async secretsFor(walletId: bigint | null, now: number): Promise<string[]> {
    if (walletId === null) return [];
    const row = await this.db.kysely.selectFrom('webhook_secrets').selectAll().where('wallet_id', '=', walletId).executeTakeFirst();
    if (!row) return [];
    const secrets = [this.masterKey.unseal(row.secret_sealed).toString('utf8')];
    if (row.previous_secret_sealed && row.previous_valid_until !== null && Number(row.previous_valid_until) > now) {
      secrets.push(this.masterKey.unseal(row.previous_secret_sealed).toString('utf8'));
    }
    return secrets;
  }

  /** POSTs the exact stored body; any 2xx is success. Never throws for network trouble. */
  async send(url: string, body: string, walletId: bigint | null, eventId: string, now: number): Promise<AttemptOutcome> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'satgate-webhooks',
      'x-satgate-event-id': eventId,
    };
    const secrets = await this.secretsFor(walletId, now);
    if (secrets.length > 0) headers[SIGNATURE_HEADER.toLowerCase()] = signWebhook(body, secrets, Math.floor(now / 1000));
    return this.post(url, body, headers);
  }

  /** POSTs `body` with the given headers (a delivery kind's own signature) to a checked address; never throws. */
  async post(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const started = Date.now();
    try {
      const res = await safePost(url, body, headers, { allowPrivate: this.allowPrivate, timeoutMs: this.timeoutMs });
      return {
        ok: res.ok,
        httpStatus: res.status,
        error: res.ok ? null : `HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`,
        durationMs: res.durationMs,
      };
    } catch (err) {
      const message = err instanceof SafePostError ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err);
      const permanent = err instanceof SafePostError && err.kind === 'refused';
      return { ok: false, httpStatus: null, error: message, durationMs: Date.now() - started, permanent };
    }
  }
}
