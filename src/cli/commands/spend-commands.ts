import pino from 'pino';
import { UsageError, type Command } from '../command.ts';
import { loadMasterKey, openStore } from '../open-store.ts';
import { ChainService } from '../../chain/chain-service.ts';
import { createSpending } from '../../spending/spending.ts';
import { SpendRefusedError } from '../../spending/spending-errors.ts';
import { btcFromSats } from '../../money/money.ts';
import { say, sayJson } from '../output.ts';

/** `satgate spend list [--api-id ID] [--json]` and `satgate spend bump <txid> --fee-rate N`. */
export const spendCommands: Command[] = [
  {
    path: ['spend', 'list'],
    summary: 'list transactions sent from service-held wallets (refunds, withdrawals) with status and fee',
    usage: 'satgate spend list [--api-id <api_id>] [--json]',
    run: async (args) => {
      const i = args.indexOf('--api-id');
      const apiId = i >= 0 ? args[i + 1] : undefined;
      if (i >= 0 && !apiId) throw new UsageError('--api-id needs an API ID');
      const { db } = await openStore();
      try {
        let q = db.kysely
          .selectFrom('spends as s')
          .innerJoin('wallets as w', 'w.id', 's.wallet_id')
          .select(['s.id', 'w.api_id', 's.purpose', 's.reference', 's.kind', 's.status', 's.txid', 's.fee_sats', 's.fee_rate', 's.vsize', 's.broadcast_attempts', 's.last_error', 's.created_at'])
          .orderBy('s.id', 'desc');
        if (apiId) {
          const wallet = await db.kysely.selectFrom('wallets').select('id').where('api_id', '=', apiId).executeTakeFirst();
          if (!wallet) throw new UsageError(`no wallet with API ID ${apiId}`);
          q = q.where('s.wallet_id', '=', wallet.id);
        }
        const rows = await q.execute();
        const outs = rows.length ? await db.kysely.selectFrom('spend_outputs').selectAll().where('spend_id', 'in', rows.map((r) => r.id)).orderBy('n').execute() : [];
        const report = rows.map((r) => ({
          txid: r.txid,
          api_id: r.api_id,
          purpose: r.purpose,
          reference: r.reference,
          kind: r.kind,
          status: r.status,
          fee_btc: btcFromSats(r.fee_sats),
          fee_rate: Number(r.fee_rate),
          vsize: Number(r.vsize),
          broadcast_attempts: Number(r.broadcast_attempts),
          last_error: r.last_error,
          created: new Date(Number(r.created_at)).toISOString(),
          outputs: outs.filter((o) => o.spend_id === r.id).map((o) => ({ address: o.address, amount_btc: btcFromSats(o.amount_sats), change: o.is_change === 1n })),
        }));
        if (args.includes('--json')) {
          sayJson(report, 2);
          return;
        }
        if (report.length === 0) say`no spends yet`;
        for (const s of report) {
          say`${s.txid}  ${s.status}  ${s.purpose}  ${s.api_id}  fee ${s.fee_btc} BTC (${s.fee_rate} sat/vB, ${s.vsize} vB)${s.last_error ? `  last error: ${s.last_error}` : ''}`;
          for (const o of s.outputs) say`    ${o.change ? 'change ' : 'pay    '} ${o.amount_btc} BTC -> ${o.address}`;
        }
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['spend', 'bump'],
    summary: 'replace a stalled spend with one paying the same outputs at a higher fee rate (RBF)',
    usage: 'satgate spend bump <txid> --fee-rate <sat/vB>',
    run: async (args) => {
      const txid = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--fee-rate');
      if (!txid || !/^[0-9a-f]{64}$/.test(txid)) throw new UsageError('a transaction id (64 hex characters) is required');
      const i = args.indexOf('--fee-rate');
      const rateText = i >= 0 ? args[i + 1] : undefined;
      if (!rateText || !/^[1-9]\d{0,5}$/.test(rateText)) throw new UsageError('--fee-rate needs a whole number of sat/vB from 1 to 999999');
      const { config, db } = await openStore();
      const log = pino({ level: 'silent' });
      const chains = new ChainService(db, Date.now, log, config.pollMs, config.fallbackFeeRate);
      try {
        await chains.configure(config.chains);
        const spending = createSpending({ db, chains, masterKey: loadMasterKey(config), clock: Date.now, log, pollMs: config.pollMs, fallbackFeeRate: config.fallbackFeeRate });
        const bumped = await spending.bump(txid, BigInt(rateText));
        say`replaced ${txid}\n      by ${bumped.txid}  fee ${btcFromSats(bumped.fee_sats)} BTC (${bumped.fee_rate} sat/vB, ${bumped.vsize} vB)  ${bumped.status}`;
      } catch (err) {
        if (err instanceof SpendRefusedError) throw new UsageError(err.message);
        throw err;
      } finally {
        await db.close();
      }
    },
  },
];
