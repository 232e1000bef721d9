// Keeps the ledger in step with the chain: inside each chain change's transaction (after the payment status machine,
// whose late-payment rates a receipt row reads), the wallets whose addresses the change touched have those
// addresses' facts brought into the ledger, so it commits with the change. The chain watchers run only in the lease
// holder, under its fence, so these writes are fenced like the rest of that work.
//
// The ledger is a record of the chain, not part of how a payment is seen: if bringing it up to date fails, its writes
// are rolled back to a savepoint and the change commits without them (logged), so a fault in the books can never stop
// payment detection. The next change, or any report (which syncs the whole wallet first), writes what was missed.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import { lockRow } from '../db/row-locks.ts';
import type { ChainChangeListener } from '../chain/chain-events.ts';
import { syncLedgerForAddresses } from './ledger-sync.ts';

export function ledgerOnChainChange(db: Pick<Db, 'engine'>, log: Pick<Logger, 'error'>): ChainChangeListener {
  return async (trx, change) => {
    if (change.addressIds.size === 0) return;
    const ids = [...change.addressIds];
    const byWallet = new Map<bigint, bigint[]>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await trx
        .selectFrom('addresses as a')
        .innerJoin('wallets as w', 'w.id', 'a.wallet_id')
        .select(['a.id', 'a.wallet_id'])
        .where('a.id', 'in', ids.slice(i, i + 500))
        .where('w.mode', '=', change.chain)
        .execute();
      for (const r of rows) byWallet.set(r.wallet_id, [...(byWallet.get(r.wallet_id) ?? []), r.id]);
    }
    // Wallets in id order, so two changes lock them in the same order; the lock serialises with a report's sync.
    for (const walletId of [...byWallet.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      await lockRow(trx, db, 'wallets', walletId);
      await sql`savepoint ledger_sync`.execute(trx);
      try {
        await syncLedgerForAddresses(trx, walletId, byWallet.get(walletId)!, change.now);
        await sql`release savepoint ledger_sync`.execute(trx);
      } catch (err) {
        await sql`rollback to savepoint ledger_sync`.execute(trx);
        await sql`release savepoint ledger_sync`.execute(trx);
        log.error({ err, walletId: String(walletId), chain: change.chain }, 'ledger not brought up to date for this chain change; the next change or report will');
      }
    }
  };
}
