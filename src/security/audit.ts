import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';

/** What the audit trail records (refunds add their own actions). */
export type AuditAction =
  | 'otp_sent'
  | 'otp_failed'
  | 'otp_locked'
  | 'login_locked'
  | 'login_unlocked'
  | 'login'
  | 'login_refused'
  | 'logout'
  | 'profile_updated'
  | 'wallet_associated'
  | 'association_refused'
  | 'rate_limited'
  | (string & {});

/** One audit record. */
export interface AuditEntry {
  action: AuditAction;
  profileId?: bigint | null;
  email?: string | null;
  ip?: string | null;
  detail?: Record<string, unknown>;
}

/** A stored audit record, as the operator reads it. */
export interface AuditRecord {
  at: number;
  action: string;
  email: string | null;
  ip: string | null;
  detail: Record<string, unknown> | null;
}

/** Writes an audit record in the caller's transaction (or directly), at `now`. Never holds a secret. */
export async function recordAudit(db: Kysely<Database> | Transaction<Database>, entry: AuditEntry, now: number): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      at: BigInt(now),
      action: entry.action,
      profile_id: entry.profileId ?? null,
      email: entry.email ?? null,
      ip: entry.ip ?? null,
      detail_json: entry.detail ? JSON.stringify(entry.detail) : null,
    })
    .execute();
}

/** The audit trail, newest last; `email` narrows it to one login (case-insensitive). */
export async function listAudit(db: Db, opts: { email?: string; limit?: number } = {}): Promise<AuditRecord[]> {
  let q = db.kysely.selectFrom('audit_events').select(['id', 'at', 'action', 'email', 'ip', 'detail_json']);
  if (opts.email !== undefined) q = q.where('email', '=', opts.email.toLowerCase());
  const rows = await q.orderBy('id', 'desc').limit(opts.limit ?? 200).execute();
  return rows.reverse().map((r) => ({
    at: Number(r.at),
    action: r.action,
    email: r.email,
    ip: r.ip,
    detail: r.detail_json ? (JSON.parse(r.detail_json) as Record<string, unknown>) : null,
  }));
}
