// The counter's face: GET /pos/<pos_id> (the page), POST /pos/<pos_id>/charges (Charge: JSON, answers the payment's
// reference), GET /pos/<pos_id>/charges/<reference> (the checkout's live status, polled) and POST …/receipt (the
// payer's e-mail receipt), and the page's own stylesheet and script under /pos/assets/. The app id is the page's
// only key: declared secret, so logs never show it. Creation has no login: JSON only (a cross-site form cannot post
// it), strict fields, budgets and the gap limit (pos-apps.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { PAGE_SECURITY_HEADERS, strictCsp } from '../pages/page-headers.ts';
import { loadStaticAssets } from '../pages/page-assets.ts';
import { requestLanguage, requestMessages } from '../pages/request-language.ts';
import type { Pos } from './pos.ts';
import { renderPosNotFound, renderPosPage, type PosAssetUrls } from './pos-page.ts';
import type { ChargeInput } from './pos-cart.ts';

const SECRET_ID = { secretParams: ['pos_id'] } as const;
const TAGS = ['pages'];
const BODY_LIMIT = 64 * 1024;

/** The pages' policy, but item images may come from any https origin the merchant named. */
const POS_CSP = strictCsp("'self'").replace("img-src 'self' data:", "img-src 'self' data: https:");
const HEADERS = { ...PAGE_SECURITY_HEADERS, 'content-security-policy': POS_CSP };

const ASSETS = new URL('./assets/', import.meta.url);
/** What the JSON parser hands on for a body that is not JSON (the route refuses it in the face's shape). */
const MALFORMED: unknown = Object.freeze({});

/** Reads a charge body strictly: lines [{code, quantity}], amount (decimal string or null), tip ({percent}|{amount}|null). */
export function readChargeBody(body: unknown): ChargeInput {
  const errors: { field: string; message: string }[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid-fields', 'The charge has invalid fields.', [{ field: '', message: 'must be a JSON object' }]);
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!['lines', 'amount', 'tip'].includes(key)) bad(key, 'is not a field of a charge');
  const lines: { code: string; quantity: number }[] = [];
  if (b.lines !== undefined && !Array.isArray(b.lines)) bad('lines', 'must be an array of {"code", "quantity"}');
  for (const [i, l] of (Array.isArray(b.lines) ? b.lines : []).entries()) {
    if (typeof l !== 'object' || l === null || Array.isArray(l)) bad(`lines[${i}]`, 'must be an object {"code", "quantity"}');
    else {
      const { code, quantity, ...rest } = l as Record<string, unknown>;
      if (Object.keys(rest).length > 0) bad(`lines[${i}]`, `has fields a line does not have: ${Object.keys(rest).join(', ')} (prices come from the server)`);
      if (typeof code !== 'string') bad(`lines[${i}].code`, 'must be a string');
      if (typeof quantity !== 'number' || !Number.isInteger(quantity)) bad(`lines[${i}].quantity`, 'must be a whole number');
      if (typeof code === 'string' && typeof quantity === 'number') lines.push({ code, quantity });
    }
  }
  let amount: string | null = null;
  if (b.amount !== undefined && b.amount !== null) {
    if (typeof b.amount !== 'string') bad('amount', 'must be a decimal string, such as "12.50"');
    else amount = b.amount.trim();
  }
  let tip: ChargeInput['tip'] = null;
  if (b.tip !== undefined && b.tip !== null) {
    const t = b.tip as Record<string, unknown>;
    if (typeof t !== 'object' || Array.isArray(t) || Object.keys(t).length !== 1) bad('tip', 'must be {"percent": 10} or {"amount": "1.50"}');
    else if ('percent' in t) {
      if (typeof t.percent !== 'number' || !Number.isInteger(t.percent)) bad('tip', 'percent must be a whole number');
      else tip = { percent: t.percent };
    } else if ('amount' in t) {
      if (typeof t.amount !== 'string') bad('tip', 'amount must be a decimal string, such as "1.50"');
      else tip = { amount: t.amount.trim() };
    } else bad('tip', 'must be {"percent": 10} or {"amount": "1.50"}');
  }
  if (errors.length > 0) throw new DomainError('invalid-fields', 'The charge has invalid fields.', errors);
  return { lines, amount, tip };
}

export async function posRoutes(app: FastifyInstance, pos: Pos): Promise<void> {
  const loaded = loadStaticAssets(ASSETS, { 'pos.css': 'text/css; charset=utf-8', 'pos.js': 'text/javascript; charset=utf-8' }, '/pos/assets/');
  const urls: PosAssetUrls = { css: loaded.url('pos.css'), js: loaded.url('pos.js'), posCss: loaded.url('pos.css'), posJs: loaded.url('pos.js') };

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)) as unknown);
    } catch {
      done(null, MALFORMED);
    }
  });

  const html = (reply: FastifyReply, status: number, text: string) => reply.status(status).headers(HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(text);
  const json = (reply: FastifyReply, status: number, body: unknown) => reply.status(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(body));
  // Refusals are the wallet API's envelope (as the pages' other JSON calls answer): a bad or sold-out charge is a
  // wrong argument (201, HTTP 400) whose message names every field, so the counter can show it as it is.
  const refusal = (err: unknown): never => {
    if (err instanceof DomainError && (err.kind === 'invalid-fields' || err.kind === 'gone')) {
      const detail = err.fields?.length ? err.fields.map((f) => (f.field === '' ? f.message : `${f.field} ${f.message}`)).join('; ') : err.message;
      throw new DomainError('invalid', `Wrong or missing argument: ${err.kind === 'gone' ? err.message : detail}`, err.fields);
    }
    throw err;
  };

  app.get<{ Params: { file: string } }>('/pos/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const file = loaded.files.get(request.params.file);
    if (!file) return html(reply, 404, renderPosNotFound(requestMessages(request, reply), urls));
    reply.headers(HEADERS).header('etag', file.etag).header('cache-control', 'public, max-age=86400');
    if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
    return reply.type(file.contentType).send(file.body);
  });

  app.get<{ Params: { pos_id: string } }>('/pos/:pos_id', { config: SECRET_ID, schema: { summary: 'A point of sale (HTML): the counter page; writes nothing', tags: TAGS } }, async (request, reply) => {
    try {
      const { view, wallet } = await pos.apps.find(request.params.pos_id);
      const m = requestMessages(request, reply, view.app.default_language ?? wallet.default_language);
      return html(reply, 200, renderPosPage(view, m, urls));
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not-found') return html(reply, 404, renderPosNotFound(requestMessages(request, reply), urls));
      throw err;
    }
  });

  app.post<{ Params: { pos_id: string } }>('/pos/:pos_id/charges', { config: SECRET_ID, schema: { summary: 'Charge: prices the cart on the server and creates the payment (JSON)', tags: TAGS } }, async (request, reply) => {
    try {
      if (!isJson(request.headers['content-type'])) throw new DomainError('invalid', 'Wrong or missing argument: a charge is a JSON body (application/json)');
      if (isMalformed(request.body)) throw new DomainError('invalid-fields', 'The charge has invalid fields.', [{ field: '', message: 'is not valid JSON' }]);
      const input = readChargeBody(request.body);
      const reference = await pos.apps.charge(request.params.pos_id, input, request.ip, requestLanguage(request));
      return json(reply, 201, { return: '0', status: 'OK', reference });
    } catch (err) {
      return refusal(err);
    }
  });

  app.get<{ Params: { pos_id: string; reference: string } }>(
    '/pos/:pos_id/charges/:reference',
    { config: SECRET_ID, schema: { summary: "A charge's live status for the counter's checkout (JSON, polled)", tags: TAGS } },
    async (request, reply) => {
      try {
        return json(reply, 200, { return: '0', status: 'OK', charge: await pos.receipts.status(request.params.pos_id, request.params.reference) });
      } catch (err) {
        return refusal(err);
      }
    },
  );

  app.post<{ Params: { pos_id: string; reference: string } }>(
    '/pos/:pos_id/charges/:reference/receipt',
    { config: SECRET_ID, schema: { summary: "E-mails the paid charge's receipt to the address the payer typed (JSON)", tags: TAGS } },
    async (request, reply) => {
      try {
        if (!isJson(request.headers['content-type'])) throw new DomainError('invalid', 'Wrong or missing argument: a receipt request is a JSON body (application/json)');
        const body = request.body;
        if (isMalformed(body) || typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).some((k) => k !== 'email')) {
          throw new DomainError('invalid-fields', 'The receipt has invalid fields.', [{ field: 'email', message: 'send {"email": "you@example.com"}' }]);
        }
        await pos.receipts.mail(request.params.pos_id, request.params.reference, (body as Record<string, unknown>).email);
        return json(reply, 202, { return: '0', status: 'OK' });
      } catch (err) {
        return refusal(err);
      }
    },
  );
}

function isJson(type: string | undefined): boolean {
  return String(type ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function isMalformed(body: unknown): boolean {
  return body === MALFORMED;
}
