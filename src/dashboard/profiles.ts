import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, ProfilesTable } from '../db/schema.ts';
import { DomainError } from '../core/domain-errors.ts';

/** A stored profile. */
export type ProfileRow = Selectable<ProfilesTable>;

/** The optional profile fields of INTERFACE.md 2.9. */
export const PROFILE_FIELDS = ['firstname', 'lastname', 'mobile', 'country'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** Field changes: a string sets, null unsets (posted empty), absent leaves as is. */
export type ProfileChanges = Partial<Record<ProfileField, string | null>>;

/** Longest accepted value of each profile field. */
export const PROFILE_FIELD_MAX = 100;

/** The profile view of get_profile (2.9). */
export function profileView(p: ProfileRow) {
  return { email: p.email, firstname: p.firstname, lastname: p.lastname, mobile: p.mobile, country: p.country };
}

/**
 * A login e-mail as stored: the address lowercased. Anything but a plain address of at most 254 characters
 * (spaces around it included: input is never trimmed) is 308.
 */
export function loginEmail(value: string): string {
  if (
    value.length > 254 ||
    !/^[^\s@<>()",;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(value)
  ) {
    throw new DomainError('invalid-email', 'Invalid e-mail address');
  }
  return value.toLowerCase();
}

/** Turns posted profile fields into changes: empty unsets; control characters are refused (201). */
export function profileChanges(input: Partial<Record<ProfileField, string>>): ProfileChanges {
  const out: ProfileChanges = {};
  for (const field of PROFILE_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) throw new DomainError('invalid', `Wrong or missing argument: ${field} must not contain control characters`);
    out[field] = value === '' ? null : value;
  }
  return out;
}

/** The profile with this (normalised) login e-mail. */
export async function findProfileByEmail(db: Db | Transaction<Database>, email: string): Promise<ProfileRow | undefined> {
  const k: Kysely<Database> = 'kysely' in db ? db.kysely : db;
  return k.selectFrom('profiles').selectAll().where('email', '=', email).executeTakeFirst();
}

/** The profile with this id. */
export async function findProfile(db: Db, id: bigint): Promise<ProfileRow | undefined> {
  return db.kysely.selectFrom('profiles').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The profile of the e-mail, created empty when it does not exist yet (race-safe: unique e-mail). */
export async function ensureProfile(trx: Transaction<Database>, email: string, now: number): Promise<{ profile: ProfileRow; created: boolean }> {
  const inserted = await trx
    .insertInto('profiles')
    .values({ email, firstname: null, lastname: null, mobile: null, country: null, created_at: BigInt(now), updated_at: BigInt(now) })
    .onConflict((oc) => oc.column('email').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { profile: inserted, created: true };
  return { profile: (await findProfileByEmail(trx, email))!, created: false };
}

/** Applies field changes to a profile; returns the names changed. */
export async function applyProfileChanges(trx: Transaction<Database>, profileId: bigint, changes: ProfileChanges, now: number): Promise<string[]> {
  const names = Object.keys(changes);
  if (names.length === 0) return [];
  await trx
    .updateTable('profiles')
    .set({ ...changes, updated_at: BigInt(now) })
    .where('id', '=', profileId)
    .execute();
  return names;
}
