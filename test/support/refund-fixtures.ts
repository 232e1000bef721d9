// Fixtures for refund tests: a dashboard session owning wallets, and regtest payments to a wallet.
import type { AppContext } from '../../src/app/context.ts';
import { Sessions } from '../../src/dashboard/sessions.ts';
import { associate } from '../../src/dashboard/accounts.ts';
import type { WalletRow } from '../../src/wallets/wallet-repository.ts';
import type { RegtestNode } from './regtest-node.ts';

/** Creates a profile associated with the wallets and opens a session; returns its token. */
export async function sessionOwning(ctx: AppContext, email: string, walletIds: bigint[]): Promise<string> {
  const now = Date.now();
  const sessions = new Sessions(ctx.db, () => Date.now());
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const profile = await trx
      .insertInto('profiles')
      .values({ email, firstname: null, lastname: null, mobile: null, country: null, created_at: BigInt(now), updated_at: BigInt(now) })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of walletIds) await associate(trx, profile.id, id, 'operator', now);
    return (await sessions.open(trx, profile.id, 7200, null)).token;
  });
}

/** Pays each amount to a new payment address of the wallet in one transaction, mines it and lets the watcher see it. */
export async function payWallet(ctx: AppContext, node: RegtestNode, wallet: WalletRow, amounts: bigint[]): Promise<{ txid: string; addresses: string[] }> {
  const outs = [];
  const addresses = [];
  for (const amount of amounts) {
    const row = await ctx.db.kysely.transaction().execute((trx) => ctx.wallets.issuer.issueForPayment(trx, wallet, Date.now()));
    ctx.chains.watch('test', Buffer.from(row.script_hex, 'hex'), { addressId: row.id, walletId: wallet.id });
    outs.push({ script: Buffer.from(row.script_hex, 'hex'), amount });
    addresses.push(row.address);
  }
  const paid = await node.payMany(outs);
  await node.mine(1);
  await ctx.chains.pollNow();
  return { txid: paid.txid, addresses };
}

/** Waits until the node's mempool holds the transaction (bcoin validates after answering sendrawtransaction). */
export async function inMempool(node: RegtestNode, txid: string, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await node.rpc.getRawMempool()).includes(txid)) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}
