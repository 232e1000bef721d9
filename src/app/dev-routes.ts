import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { WalletApiError } from '../core/errors.ts';
import { ok } from '../http/envelope.ts';
import type { AppContext } from './context.ts';
import type { DevChain } from '../devchain/dev-chain.ts';

const PayBody = Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }), btc: Type.String({ minLength: 1, maxLength: 20 }) });
const MineBody = Type.Object({ blocks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) });

/** Development mode only: pay an address from the dev chain's payer, or mine blocks. Loopback callers only. */
export async function devRoutes(app: FastifyInstance, ctx: AppContext, chain: DevChain): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (!['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(request.ip)) {
      throw new WalletApiError('201', 'development endpoints answer loopback callers only');
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
        if (err instanceof InvalidAddressError) throw new WalletApiError('201', `not a regtest address: ${err.message}`);
        throw err;
      }
      let sats: bigint;
      try {
        sats = satsFromBtc(request.body.btc);
      } catch {
        throw new WalletApiError('201', 'btc must be a positive amount with at most 8 decimals');
      }
      if (sats <= 0n) throw new WalletApiError('201', 'btc must be positive');
      const payment = await chain.node.pay(script, sats);
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
