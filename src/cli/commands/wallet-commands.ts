import { WalletRepository } from '../../wallets/wallet-repository.ts';
import { UsageError, type Command } from '../command.ts';
import { loadMasterKey, openStore } from '../open-store.ts';
import { say, sayJson, warn } from '../output.ts';

/** `satgate wallet list` and `satgate wallet export-seed <api_id>`. */
export const walletCommands: Command[] = [
  {
    path: ['wallet', 'list'],
    summary: 'list registered wallets',
    usage: 'satgate wallet list [--json]',
    run: async (args) => {
      const { db } = await openStore();
      try {
        const rows = await new WalletRepository(db).list();
        const wallets = rows.map((w) => ({
          api_id: w.api_id,
          mode: w.mode,
          network: w.network,
          script_type: w.script_type,
          local_currency: w.local_currency,
          account_name: w.account_name,
          generated: w.seed_sealed !== null,
          pub: w.pub,
          created: new Date(Number(w.created_at)).toISOString(),
        }));
        if (args.includes('--json')) sayJson(wallets, 2);
        else if (wallets.length === 0) say`no wallets registered yet (POST /add_pub)`;
        else for (const w of wallets) say`${w.api_id}  ${w.network}  ${w.script_type}  ${w.local_currency}  ${w.account_name ?? ''}  ${w.pub.slice(0, 16)}…${w.generated ? '  (seed held)' : ''}`;
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['wallet', 'export-seed'],
    summary: 'show the seed words of a wallet the service generated (pub = "new_wallet")',
    usage: 'satgate wallet export-seed <api_id>\n\nPrints the BIP39 mnemonic. Anyone who sees it can spend the wallet.',
    run: async (args) => {
      const apiId = args.find((a) => !a.startsWith('-'));
      if (!apiId) throw new UsageError('an api_id is required');
      const { config, db } = await openStore();
      try {
        const wallet = await new WalletRepository(db).findByApiId(apiId);
        if (!wallet) throw new UsageError(`no wallet with api_id ${apiId}`);
        if (!wallet.seed_sealed) throw new UsageError(`wallet ${apiId} is watch-only: its seed was never held by this service`);
        const mnemonic = loadMasterKey(config).unseal(wallet.seed_sealed).toString('utf8');
        warn`This is the wallet seed. Anyone who sees it can spend the funds. Store it offline.`;
        say`${mnemonic}`;
      } finally {
        await db.close();
      }
    },
  },
];
