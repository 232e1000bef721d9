// Helpers for dashboard tests: send a code, read it back from the outbox (unsealed with the test master key,
// as the mail worker would), and log in.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { openSealedMail } from '../../src/notify/sealed-mail.ts';
import { TEST_MASTER_KEY } from './test-app.ts';

/** POST /send_otp from an IP address. */
export function sendOtp(app: FastifyInstance, body: Record<string, unknown>, ip = '198.51.100.1') {
  return app.inject({ method: 'POST', url: '/send_otp', payload: body, remoteAddress: ip });
}

/** POST /check_otp from an IP address. */
export function checkOtp(app: FastifyInstance, body: Record<string, unknown>, ip = '198.51.100.1') {
  return app.inject({ method: 'POST', url: '/check_otp', payload: body, remoteAddress: ip });
}

/** The most recent sealed mail queued for the address (a login code, an invitation), opened as the mail worker opens it. */
export async function lastSealedMail(db: Db, email: string): Promise<{ subject: string; text: string }> {
  const row = await db.kysely.selectFrom('outbox').selectAll().where('target', '=', email).where('kind', '=', 'email').orderBy('id', 'desc').executeTakeFirstOrThrow();
  const mail = openSealedMail(TEST_MASTER_KEY, JSON.parse(row.payload_json) as Record<string, unknown>);
  if (!mail) throw new Error(`the last mail to ${email} is not sealed`);
  return mail;
}

/** The most recent login mail queued for the address, opened as the mail worker opens it. */
export async function lastLoginMail(db: Db, email: string): Promise<{ subject: string; text: string; code: string }> {
  const mail = await lastSealedMail(db, email);
  const code = /^ {4}([0-9]{6})$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in the mail: ${mail.text}`);
  return { ...mail, code };
}

/** send_otp then check_otp with the mailed code; returns the session token. */
export async function login(app: FastifyInstance, db: Db, email: string, extra: Record<string, unknown> = {}, ip = '198.51.100.1'): Promise<string> {
  const sent = await sendOtp(app, { email }, ip);
  expect(sent.json().return, sent.body).toBe('0');
  const { code } = await lastLoginMail(db, email);
  const checked = await checkOtp(app, { email, otp: code, ...extra }, ip);
  expect(checked.json().return, checked.body).toBe('0');
  return checked.json().token as string;
}

/** A GET or POST with the session token in the Authorization header. */
export function authed(app: FastifyInstance, token: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return app.inject({ method, url, headers: { authorization: token }, ...(payload ? { payload } : {}), remoteAddress: '198.51.100.1' });
}
