// The console's Payment requests routes: the list of the merchant's requests and the form creating one. A request
// is created only for a wallet of the signed-in merchant; a refused form comes back with its values and the reason.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { PaymentRequests, RequestView } from '../payment-requests/payment-requests.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import { messageOf, refusalStatus } from './error-page.ts';
import type { Shell } from './views/layout.ts';
import { renderRequests, type RequestForm } from './views/requests.ts';

/** What the routes borrow from the console. */
export interface RequestPageDeps {
  merchant: Merchant;
  requests: PaymentRequests;
  repo: WalletRepository;
  publicUrl: string;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
  field(body: unknown, name: string): string | undefined;
}

const EMPTY: RequestForm = { api_id: '', title: '', amount: '', currency: '', description: '', due_date: '', payer_email: '', allow_partial: false };

/** Registers the pages. */
export function requestPages(app: FastifyInstance, d: RequestPageDeps): void {
  const page = async (request: FastifyRequest, base: Omit<Shell, 'title' | 'section'>, form: RequestForm) => {
    const wallets = await d.merchant.wallets(d.session(request));
    const rows: { apiId: string; view: RequestView }[] = [];
    for (const w of wallets) {
      const row = await d.repo.findByApiId(w.api_id);
      if (row) for (const view of await d.requests.list(row, false)) rows.push({ apiId: w.api_id, view });
    }
    rows.sort((a, b) => Number(b.view.row.created_at - a.view.row.created_at));
    const first = wallets[0];
    const filled = form.api_id === '' && first ? { ...form, api_id: first.api_id, currency: form.currency || first.local_currency.toUpperCase() } : form;
    return renderRequests(base, wallets, rows, filled, d.publicUrl);
  };

  app.get<{ Querystring: { ok?: string } }>('/console/requests', { schema: { summary: 'Console: payment requests (HTML)', tags: ['pages'] } }, async (request, reply) => {
    const base = d.base(request);
    const flash = request.query.ok === 'created' ? { kind: 'ok' as const, text: 'Payment request created: send its link to your client.' } : base.flash;
    return d.html(reply, 200, await page(request, { ...base, flash }, EMPTY));
  });

  app.post('/console/requests', { schema: { hide: true } }, async (request, reply) => {
    const f = (name: string) => d.field(request.body, name) ?? '';
    const form: RequestForm = {
      api_id: f('api_id'),
      title: f('title'),
      amount: f('amount').trim(),
      currency: f('currency').trim(),
      description: f('description'),
      due_date: f('due_date').trim(),
      payer_email: f('payer_email').trim(),
      allow_partial: f('allow_partial') === '1',
    };
    try {
      const wallets = await d.merchant.wallets(d.session(request));
      const wallet = wallets.some((w) => w.api_id === form.api_id) ? await d.repo.findByApiId(form.api_id) : undefined;
      if (!wallet) throw new DomainError('not-found', 'Choose one of your wallets.');
      let dueAt: number | null = null;
      if (form.due_date !== '') {
        // The due date is the end of that day (UTC): a request due on the 31st can be paid all day long.
        const ms = /^\d{4}-\d{2}-\d{2}$/.test(form.due_date) ? Date.parse(`${form.due_date}T23:59:59.999Z`) : Number.NaN;
        if (Number.isNaN(ms)) throw new DomainError('invalid-fields', 'The payment request has invalid fields.', [{ field: 'due date', message: 'must be a day written as YYYY-MM-DD' }]);
        dueAt = ms;
      }
      await d.requests.create(wallet, {
        amount: form.amount,
        currency: form.currency,
        title: form.title,
        description: form.description,
        dueAt,
        payerEmail: form.payer_email,
        allowPartial: form.allow_partial,
      });
    } catch (err) {
      // A form's bad fields are named one by one (the wallet API's envelope has no field list to map them from).
      const fields = err instanceof DomainError && err.kind === 'invalid-fields' ? (err.fields ?? []) : null;
      const status = fields !== null ? 422 : refusalStatus(err);
      if (status === null) throw err;
      const text = fields !== null ? fields.map((p) => `${p.field} ${p.message}`).join('; ') : messageOf(err);
      return d.html(reply, status, await page(request, { ...d.base(request), flash: { kind: 'error', text: `Not created: ${text}.` } }, form));
    }
    return d.secure(reply).redirect('/console/requests?ok=created', 303);
  });
}
