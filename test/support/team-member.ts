// A wallet member in tests of store teams: signs in on the console by the code mailed (read from the outbox), then
// speaks to the console with its cookie and CSRF token, to the dashboard API with the same session token, and to
// the key-authorization page with it as that page's cookie.
import { expect } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/database.ts';
import { lastLoginMail } from './dashboard.ts';

/** One signed-in person; `origin` is the service's public URL (the console's same-origin check). */
export class TeamMember {
  cookie = '';
  token = '';
  csrf = '';
  constructor(
    readonly app: FastifyInstance,
    readonly email: string,
    readonly origin: string,
    readonly ip = '203.0.113.7',
  ) {}

  /** A console request; a form makes it a POST with the console's headers (an array value repeats its field). */
  request(method: string, url: string, form?: Record<string, string | string[]>, cookie = this.cookie): Promise<LightMyRequestResponse> {
    const fields = form ? Object.entries(form).flatMap(([k, v]): [string, string][] => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]])) : undefined;
    const body = fields ? new URLSearchParams(fields).toString() : undefined;
    return this.app.inject({
      method: method as 'GET',
      url,
      remoteAddress: this.ip,
      headers: { host: new URL(this.origin).host, ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, 'sec-fetch-site': 'same-origin' } : {}) },
      ...(body !== undefined ? { payload: body } : {}),
    });
  }

  /** Signs in on the console by the code of the last login mail. */
  async signIn(db: Db): Promise<this> {
    expect((await this.request('POST', '/console/login', { email: this.email })).statusCode).toBe(200);
    const { code } = await lastLoginMail(db, this.email);
    const res = await this.request('POST', '/console/login/code', { email: this.email, otp: code });
    expect(res.statusCode, res.body).toBe(303);
    this.cookie = (res.headers['set-cookie'] as string).split(';')[0]!;
    this.token = this.cookie.slice(this.cookie.indexOf('=') + 1);
    this.csrf = /name="csrf" value="([^"]+)"/.exec((await this.request('GET', '/console/profile')).body)![1]!;
    return this;
  }

  /** A dashboard API request with the session token. */
  api(method: string, url: string, payload?: unknown) {
    return this.app.inject({ method: method as 'GET', url, remoteAddress: this.ip, headers: { authorization: this.token }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  }

  /** Approves a Greenfield key for the store with these policies on the key-authorization page; the answer page. */
  async authorizeKey(storeId: string, policies: string[]): Promise<LightMyRequestResponse> {
    const cookie = `satgate_gf_authorize=${this.token}`;
    const ask = new URLSearchParams([['applicationName', 'Team test'], ...policies.map((p): [string, string] => ['permissions', p])]);
    const page = await this.request('GET', `/api-keys/authorize?${ask.toString()}`, undefined, cookie);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const form = new URLSearchParams(ask);
    for (const [k, v] of [['csrf', csrf], ['storeId', storeId], ['decision', 'approve']]) form.append(k!, v!);
    return this.app.inject({
      method: 'POST',
      url: '/api-keys/authorize/decide',
      remoteAddress: this.ip,
      headers: { host: new URL(this.origin).host, cookie, 'content-type': 'application/x-www-form-urlencoded', origin: this.origin },
      payload: form.toString(),
    });
  }
}
