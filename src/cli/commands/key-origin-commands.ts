import { UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';
import { parseExtendedPublicKey } from '../../bitcoin/extended-key.ts';
import { formatKeyOrigin, parseKeyOrigin } from '../../spending/psbt.ts';
import { say } from '../output.ts';

/** `satgate wallet origin <api_id> <[fingerprint/path]>`: the key's real origin, written into refund PSBTs. */
export const keyOriginCommands: Command[] = [
  {
    path: ['wallet', 'origin'],
    summary: "record a watch-only key's origin (master fingerprint and path) for the PSBTs hardware wallets sign",
    usage:
      "satgate wallet origin <api_id> <origin>     e.g. satgate wallet origin test_… \"[d34db33f/84h/1h/0h]\"\n\n" +
      "The path must have as many steps as the key's depth and end with the key's own child number (BIP174).",
    run: async (args) => {
      const [apiId, originText] = args.filter((a) => !a.startsWith('--'));
      if (!apiId || !originText) throw new UsageError('an API ID and an origin such as [d34db33f/84h/1h/0h] are required');
      let origin;
      try {
        origin = parseKeyOrigin(originText);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const { db } = await openStore();
      try {
        const wallet = await db.kysely.selectFrom('wallets').select(['id', 'pub', 'seed_sealed', 'descriptor']).where('api_id', '=', apiId).executeTakeFirst();
        if (!wallet) throw new UsageError(`no wallet with API ID ${apiId}`);
        if (wallet.seed_sealed !== null) throw new UsageError('this wallet is held by the service, which signs its own transactions');
        // A descriptor names each key's origin itself ([fingerprint/path]xpub…); register the descriptor with them instead.
        if (wallet.descriptor) throw new UsageError('this wallet was registered as a descriptor, which carries its keys\' origins itself');
        const key = parseExtendedPublicKey(wallet.pub);
        if (origin.path.length !== key.depth) throw new UsageError(`the key has depth ${key.depth}, so its origin needs ${key.depth} path step(s), not ${origin.path.length}`);
        if (key.depth > 0 && origin.path[origin.path.length - 1] !== key.childIndex) {
          const child = key.childIndex >= 0x80000000 ? `${key.childIndex - 0x80000000}h` : String(key.childIndex);
          throw new UsageError(`the key is child ${child} of its parent; the origin's last step must be ${child}`);
        }
        const text = formatKeyOrigin(origin);
        await db.kysely.updateTable('wallets').set({ key_origin: text }).where('id', '=', wallet.id).execute();
        say`${apiId}: key origin ${text}`;
      } finally {
        await db.close();
      }
    },
  },
];
