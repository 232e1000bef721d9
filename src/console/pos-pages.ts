// The console's Point of sale routes: the merchant's apps and the form creating one (items typed one per line), and
// deleting one. An app is made only for a wallet of the signed-in merchant; a refused form comes back with its
// values and every reason, and nothing is stored.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldProblem } from '../core/domain-errors.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { PosApps } from '../pos/pos-apps.ts';
import type { AppInput, ItemInput } from '../pos/pos-fields.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import { messageOf, refusalStatus } from './error-page.ts';
import type { Shell } from './views/layout.ts';
import { EMPTY_POS_FORM, renderPos, type PosForm } from './views/pos.ts';

export interface PosPageDeps {
  merchant: Merchant;
  pos: PosApps;
  repo: WalletRepository;
  publicUrl: string;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
  field(body: unknown, name: string): string | undefined;
}

/** The items textarea: one item per line, `name | price | stock | image URL | description`. */
export function readItemLines(text: string): { items: ItemInput[]; errors: FieldProblem[] } {
  const items: ItemInput[] = [];
  const errors: FieldProblem[] = [];
  text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .forEach((line, i) => {
      const parts = line.split('|').map((p) => p.trim());
      if (parts.length < 2 || parts.length > 5) return errors.push({ field: `items line ${i + 1}`, message: 'must be name | price, then optionally | stock | image URL | description' });
      const [name = '', price = '', stock = '', imageUrl = '', description = ''] = parts;
      items.push({ name, price, stock: stock === '' ? null : stock, imageUrl, description });
    });
  return { items, errors };
}

/** Tip presets as typed: whole numbers separated by commas or spaces. */
export function readTipPresets(text: string): number[] | null {
  const parts = text.split(/[,\s]+/).filter((p) => p !== '').map((p) => p.replace(/%$/, ''));
  return parts.every((p) => /^\d{1,3}$/.test(p)) ? parts.map(Number) : null;
}

export function posPages(app: FastifyInstance, d: PosPageDeps): void {
  const page = async (request: FastifyRequest, base: Omit<Shell, 'title' | 'section'>, form: PosForm) => {
    const wallets = await d.merchant.wallets(d.session(request));
    const rows = [];
    for (const w of wallets) {
      const row = await d.repo.findByApiId(w.api_id);
      if (row) rows.push(row);
    }
    const first = wallets[0];
    const filled = form.api_id === '' && first ? { ...form, api_id: first.api_id, currency: form.currency || first.local_currency.toUpperCase() } : form;
    return renderPos(base, wallets, await d.pos.list(rows), filled, d.publicUrl);
  };

  app.get<{ Querystring: { ok?: string } }>('/console/pos', { schema: { summary: 'Console: point of sale apps (HTML)', tags: ['pages'] } }, async (request, reply) => {
    const base = d.base(request);
    const flash =
      request.query.ok === 'created'
        ? { kind: 'ok' as const, text: 'Point of sale created: open its counter link on the tablet.' }
        : request.query.ok === 'deleted'
          ? { kind: 'ok' as const, text: 'Point of sale deleted: its counter link no longer works.' }
          : base.flash;
    return d.html(reply, 200, await page(request, { ...base, flash }, EMPTY_POS_FORM));
  });

  app.post('/console/pos', { schema: { hide: true } }, async (request, reply) => {
    const f = (name: string) => d.field(request.body, name) ?? '';
    const form: PosForm = {
      api_id: f('api_id'),
      title: f('title'),
      description: f('description'),
      currency: f('currency').trim(),
      mode: f('mode'),
      items: f('items'),
      custom_amount: f('custom_amount') === '1',
      tip_presets: f('tip_presets'),
      custom_tip: f('custom_tip') === '1',
      default_language: f('default_language'),
    };
    try {
      const wallets = await d.merchant.wallets(d.session(request));
      const wallet = wallets.some((w) => w.api_id === form.api_id) ? await d.repo.findByApiId(form.api_id) : undefined;
      if (!wallet) throw new DomainError('not-found', 'Choose one of your wallets.');
      const errors: FieldProblem[] = [];
      if (form.mode !== 'items' && form.mode !== 'keypad') errors.push({ field: 'mode', message: 'must be items or keypad' });
      const lines = readItemLines(form.items);
      errors.push(...lines.errors);
      const tips = readTipPresets(form.tip_presets);
      if (tips === null) errors.push({ field: 'tip presets', message: 'must be whole percentages separated by commas, such as 5, 10, 15' });
      const keypadOnly = form.mode === 'keypad';
      const input: AppInput = {
        appName: null,
        title: form.title,
        description: form.description,
        currency: form.currency,
        keypadOnly,
        customAmount: form.custom_amount,
        tipPresets: tips ?? [],
        customTip: form.custom_tip,
        defaultLanguage: form.default_language,
        items: lines.items,
      };
      // Every problem at once: the form's own, then the domain's.
      try {
        d.pos.check(input);
      } catch (err) {
        if (err instanceof DomainError && err.fields) errors.push(...err.fields);
        else throw err;
      }
      if (errors.length > 0) throw new DomainError('invalid-fields', 'The point of sale has invalid fields.', errors);
      await d.pos.create(wallet, input);
    } catch (err) {
      const fields = err instanceof DomainError && err.kind === 'invalid-fields' ? (err.fields ?? []) : null;
      const status = fields !== null ? 422 : refusalStatus(err);
      if (status === null) throw err;
      const text = fields !== null ? fields.map((p) => `${p.field} ${p.message}`).join('; ') : messageOf(err);
      return d.html(reply, status, await page(request, { ...d.base(request), flash: { kind: 'error', text: `Not created: ${text}.` } }, form));
    }
    return d.secure(reply).redirect('/console/pos?ok=created', 303);
  });

  app.post('/console/pos/delete', { schema: { hide: true } }, async (request, reply) => {
    try {
      const id = d.field(request.body, 'pos_id') ?? '';
      const { wallet } = await d.pos.find(id);
      const mine = (await d.merchant.wallets(d.session(request))).some((w) => w.api_id === wallet.api_id);
      if (!mine) throw new DomainError('not-found', 'No point of sale with this id: check the link.');
      await d.pos.delete(wallet, id);
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null) throw err;
      return d.html(reply, status, await page(request, { ...d.base(request), flash: { kind: 'error', text: `Not deleted: ${messageOf(err)}` } }, EMPTY_POS_FORM));
    }
    return d.secure(reply).redirect('/console/pos?ok=deleted', 303);
  });
}
