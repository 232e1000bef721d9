// The console's Payouts routes: a watch-only wallet's approved Greenfield payouts paid by a PSBT, as the refunds
// page does for refunds (greenfield/payout-psbt.ts does the work, the same as GET …/payouts/psbt and POST
// …/payouts/signed; app/console-payouts.ts lends it). A wallet must be the signed-in merchant's (404 otherwise); a refusal (nothing due, funds short,
// a wrong or changed transaction) comes back as the page with its reason, never as the API's JSON.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import { messageOf, refusalStatus } from './error-page.ts';
import type { Shell } from './views/layout.ts';
import { renderPayouts, type DuePayout } from './views/payouts.ts';

/**
 * A watch-only wallet's payouts paid by a PSBT (greenfield/payout-psbt.ts behind app/console-payouts.ts): refusals
 * are DomainErrors, as the console shows them.
 */
export interface ConsolePayouts {
  due(walletId: bigint): Promise<DuePayout[]>;
  /** The unsigned PSBT paying every due payout, base64. */
  psbt(walletId: bigint): Promise<string>;
  /** Checks, stores and broadcasts the signed PSBT(s) or raw transaction. */
  submit(walletId: bigint, signed: string): Promise<void>;
}

/** What the routes borrow from the console. */
export interface PayoutPageDeps {
  merchant: Merchant;
  psbts: ConsolePayouts;
  repo: WalletRepository;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest, ok?: unknown): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
  field(body: unknown, name: string): string | undefined;
}

/** Registers the pages. */
export function payoutPages(app: FastifyInstance, d: PayoutPageDeps): void {
  const page = async (request: FastifyRequest, base: Omit<Shell, 'title' | 'section'>) => {
    const wallets = (await d.merchant.wallets(d.session(request))).filter((w) => w.settlement_mode === 'direct');
    const listed = [];
    for (const wallet of wallets) {
      const row = await d.repo.findByApiId(wallet.api_id);
      if (row) listed.push({ wallet, due: await d.psbts.due(row.id) });
    }
    return renderPayouts(base, listed);
  };
  /** The merchant's wallet row of the posted or asked api_id (404 for another's or an unknown one). */
  const walletOf = async (request: FastifyRequest, apiId: string) => {
    const wallet = await d.merchant.wallet(d.session(request), apiId);
    const row = await d.repo.findByApiId(wallet.api_id);
    if (!row) throw new DomainError('not-found', 'No such wallet');
    return row;
  };
  const refusedPage = async (request: FastifyRequest, reply: FastifyReply, err: unknown) => {
    const status = refusalStatus(err);
    if (status === null || status === 404) throw err;
    return d.html(reply, status, await page(request, { ...d.base(request), flash: { kind: 'error', text: messageOf(err) } }));
  };

  app.get<{ Querystring: { ok?: string } }>('/console/payouts', { schema: { summary: "Console: watch-only wallets' approved payouts, paid by a PSBT (HTML)", tags: ['pages'] } }, async (request, reply) =>
    d.html(reply, 200, await page(request, d.base(request, request.query.ok))),
  );
  app.get<{ Querystring: { api_id?: string } }>('/console/payouts/psbt', { schema: { hide: true } }, async (request, reply) => {
    const apiId = typeof request.query.api_id === 'string' ? request.query.api_id : '';
    const wallet = await walletOf(request, apiId);
    let psbt: string;
    try {
      psbt = await d.psbts.psbt(wallet.id);
    } catch (err) {
      return refusedPage(request, reply, err);
    }
    const name = `payouts-${wallet.api_id.replace(/[^A-Za-z0-9_]/g, '')}.psbt`;
    return d.secure(reply).header('content-disposition', `attachment; filename="${name}"`).type('application/octet-stream').send(Buffer.from(psbt, 'base64'));
  });
  app.post('/console/payouts/signed', { schema: { hide: true } }, async (request, reply) => {
    const wallet = await walletOf(request, d.field(request.body, 'api_id') ?? '');
    try {
      await d.psbts.submit(wallet.id, (d.field(request.body, 'signed') ?? '').trim());
    } catch (err) {
      return refusedPage(request, reply, err);
    }
    return d.secure(reply).redirect('/console/payouts?ok=payouts_broadcast', 303);
  });
}
