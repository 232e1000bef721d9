import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { DomainError } from '../core/domain-errors.ts';
import { ok } from '../http/envelope.ts';
import type { AppContext } from './context.ts';
import type { DevChain } from '../devchain/dev-chain.ts';
import { PayerShortError } from '../devchain/payer-short.ts';

const PayBody = Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }), btc: Type.String({ minLength: 1, maxLength: 20 }) });
const MineBody = Type.Object({ blocks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) });

/** Development mode only: pay an address from the dev chain's payer, or mine blocks. Loopback callers only. */
export async function devRoutes(app: FastifyInstance, ctx: AppContext, chain: DevChain): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (!['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(request.ip)) {
      throw new DomainError('invalid', 'development endpoints answer loopback callers only');
    }
  });

  app.post<{ Body: Static<typeof PayBody> }>(
    '/dev/pay',
    { schema: { summary: 'Development chain: pay an address from the built-in payer', tags: ['development'], body: PayBody } },
    async (request) => {
      let script: Uint8Array;
      try {
        script = decodeAddressFor(request.body.address, 'regtest').script;
      } catch (err) {
        if (err instanceof InvalidAddressError) throw new DomainError('invalid', `not a regtest address: ${err.message}`);
        throw err;
      }
      const range = amountRangeProblem(request.body.btc, 'BTC');
      if (range !== null) throw new DomainError('invalid', `btc ${range}`);
      let sats: bigint;
      try {
        sats = satsFromBtc(request.body.btc);
      } catch {
        throw new DomainError('invalid', 'btc must be a positive amount with at most 8 decimals');
      }
      if (sats <= 0n) throw new DomainError('invalid', 'btc must be positive');
      let payment: Awaited<ReturnType<DevChain['node']['pay']>>;
      try {
        payment = await chain.node.pay(script, sats);
      } catch (err) {
        if (err instanceof PayerShortError) throw new DomainError('invalid', err.message);
        throw err;
      }
      await ctx.chains.pollNow();
      return ok({ txid: payment.txid });
    },
  );

  app.post<{ Body: Static<typeof MineBody> }>(
    '/dev/mine',
    { schema: { summary: 'Development chain: mine blocks', tags: ['development'], body: MineBody } },
    async (request) => {
      const hashes = await chain.node.mine(request.body.blocks ?? 1);
      await ctx.chains.pollNow();
      return ok({ blocks: hashes, height: await chain.node.height() });
    },
  );
}
