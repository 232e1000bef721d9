// The routes of archive.ts, payment-methods.ts and store-wallet.ts inside the Greenfield scope (key checked).
// Path segments naming the payment method are parameters so both generations and any case reach one handler.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import type { JsonValue } from '../money/exact-json.ts';
import { storePermission } from './auth.ts';
import { POLICIES } from './permissions.ts';
import type { Greenfield } from './greenfield.ts';
import { GreenfieldError } from './errors.ts';
import { archiveInvoice, unarchiveInvoice } from './archive.ts';
import { checkCryptoCode, checkPut, genericMethodJson, methodGeneration, onChainMethodJson, paymentMethodNotFound, previewJson } from './payment-methods.ts';
import { listTransactions, listUtxos, oneTransaction, receiveAddress, sendFromWallet, unreserveAddress, walletOverview } from './store-wallet.ts';

type WalletOf = (storeId: string) => Promise<Selectable<WalletsTable>>;
type P = { storeId: string; invoiceId: string; pm: string; code: string; txid: string };
const TAGS = ['Greenfield'];
const SECURITY = [{ greenfieldToken: [] }];
const view = storePermission(POLICIES.viewStoreSettings);
const modify = storePermission(POLICIES.modifyStoreSettings);
const doc = (summary: string) => ({ schema: { summary, tags: TAGS, security: SECURITY } });

function query(request: FastifyRequest): Record<string, string | string[] | undefined> {
  return request.query as Record<string, string | string[] | undefined>;
}

function whole(name: string, v: string | string[] | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) throw new GreenfieldError(400, 'invalid-query', `${name} must be a whole number`);
  return Number.parseInt(v, 10);
}

/** Registers the routes on the Greenfield scope. */
export async function storeWalletRoutes(scope: FastifyInstance, gf: Greenfield, walletOf: WalletOf): Promise<void> {
  const base = '/api/v1/stores/:storeId';

  scope.delete<{ Params: P }>(`${base}/invoices/:invoiceId`, { ...doc('Archive an invoice (hidden from lists unless includeArchived=true)'), preHandler: storePermission(POLICIES.modifyInvoices) }, async (request, reply) => {
    await archiveInvoice(gf.db, gf.clock, gf.invoices, request.params.storeId, request.params.invoiceId);
    return reply.status(200).send();
  });
  scope.post<{ Params: P }>(`${base}/invoices/:invoiceId/unarchive`, { ...doc('Unarchive an invoice'), preHandler: storePermission(POLICIES.modifyInvoices) }, async (request) =>
    gf.invoices.json(await unarchiveInvoice(gf.db, gf.invoices, request.params.storeId, request.params.invoiceId)),
  );

  // The wallet of a 2.x `{pm}` (BTC-CHAIN) or a 1.x `{pm}/{code}` (onchain/BTC).
  const walletOfMethod = async (params: P, generation: '1.x' | '2.x') => {
    const g = methodGeneration(params.pm);
    if (g !== generation) throw paymentMethodNotFound();
    if (generation === '1.x') checkCryptoCode(params.code);
    return walletOf(params.storeId);
  };

  scope.get<{ Params: P }>(`${base}/payment-methods/:pm`, { ...doc('The on-chain payment method: 2.x BTC-CHAIN, or 1.x OnChain (a list)'), preHandler: view }, async (request) => {
    const g = methodGeneration(request.params.pm);
    if (g === null) throw paymentMethodNotFound();
    const wallet = await walletOf(request.params.storeId);
    return g === '1.x' ? [onChainMethodJson(wallet)] : genericMethodJson(wallet, query(request).includeConfig !== 'false');
  });
  scope.get<{ Params: P }>(`${base}/payment-methods/:pm/:code`, { ...doc('1.x: the on-chain payment method of a crypto code'), preHandler: view }, async (request) =>
    onChainMethodJson(await walletOfMethod(request.params, '1.x')),
  );
  scope.put<{ Params: P; Body: JsonValue }>(`${base}/payment-methods/:pm`, { ...doc('2.x: update the on-chain payment method (the derivation scheme cannot change)'), preHandler: modify }, async (request) => {
    const wallet = await walletOfMethod(request.params, '2.x');
    checkPut(wallet, request.body, '2.x');
    return genericMethodJson(wallet, true);
  });
  scope.put<{ Params: P; Body: JsonValue }>(`${base}/payment-methods/:pm/:code`, { ...doc('1.x: update the on-chain payment method (the derivation scheme cannot change)'), preHandler: modify }, async (request) => {
    const wallet = await walletOfMethod(request.params, '1.x');
    checkPut(wallet, request.body, '1.x');
    return onChainMethodJson(wallet);
  });
  const preview = (wallet: Selectable<WalletsTable>, request: FastifyRequest) => {
    const q = query(request);
    return previewJson(wallet, whole('offset', q.offset, 0), whole('count', q.count ?? q.amount, 10));
  };
  scope.get<{ Params: P }>(`${base}/payment-methods/:pm/:code/preview`, { ...doc('1.x: the next addresses of the derivation scheme'), preHandler: view }, async (request) =>
    preview(await walletOfMethod(request.params, '1.x'), request),
  );
  scope.get<{ Params: P }>(`${base}/payment-methods/:pm/wallet/preview`, { ...doc('2.x: the next addresses of the derivation scheme'), preHandler: view }, async (request) =>
    preview(await walletOfMethod(request.params, '2.x'), request),
  );

  // The wallet routes, once per generation.
  for (const [generation, prefix] of [['2.x', `${base}/payment-methods/:pm/wallet`], ['1.x', `${base}/payment-methods/:pm/:code/wallet`]] as const) {
    const w = (request: FastifyRequest) => walletOfMethod(request.params as P, generation);
    scope.get(prefix, { ...doc(`${generation}: wallet overview (balances in BTC)`), preHandler: view }, async (request) => walletOverview(gf, await w(request)));
    scope.get(`${prefix}/address`, { ...doc(`${generation}: a receive address (forceGenerate=true for a new one)`), preHandler: view }, async (request) =>
      receiveAddress(gf, await w(request), query(request).forceGenerate === 'true'),
    );
    scope.delete(`${prefix}/address`, { ...doc(`${generation}: unreserve the current receive address`), preHandler: modify }, async (request, reply) => {
      await unreserveAddress(gf, await w(request));
      return reply.status(200).send();
    });
    scope.get(`${prefix}/transactions`, { ...doc(`${generation}: wallet transactions, newest first`), preHandler: view }, async (request) => {
      const q = query(request);
      const statusFilter = q.statusFilter === undefined ? [] : Array.isArray(q.statusFilter) ? q.statusFilter : [q.statusFilter];
      return listTransactions(gf, await w(request), { statusFilter, skip: whole('skip', q.skip, 0), limit: q.limit === undefined ? null : whole('limit', q.limit, 0) });
    });
    scope.get(`${prefix}/transactions/:txid`, { ...doc(`${generation}: one wallet transaction`), preHandler: view }, async (request) =>
      oneTransaction(gf, await w(request), (request.params as P).txid),
    );
    scope.post(`${prefix}/transactions`, { ...doc(`${generation}: send from a service-held wallet (watch-only: refused, use a PSBT)`), preHandler: modify }, async (request) =>
      sendFromWallet(gf, await w(request), request.body as JsonValue | undefined),
    );
    scope.get(`${prefix}/feerate`, { ...doc(`${generation}: the fee rate satgate would pay now, sat/vB (its configured confirmation target)`), preHandler: view }, async (request) => {
      const q = query(request);
      // BTCPay's blockTarget is read strictly but not used: satgate estimates for its own configured target.
      if (q.blockTarget !== undefined && (typeof q.blockTarget !== 'string' || !/^\d{1,4}$/.test(q.blockTarget) || Number(q.blockTarget) < 1)) {
        throw new GreenfieldError(400, 'invalid-query', 'blockTarget must be a whole number of blocks, at least 1');
      }
      const wallet = await w(request);
      return { feerate: Number(await gf.spending.feeRate(wallet.mode)) };
    });
    scope.get(`${prefix}/utxos`, { ...doc(`${generation}: unspent outputs`), preHandler: view }, async (request) => listUtxos(gf, await w(request)));
  }
}
