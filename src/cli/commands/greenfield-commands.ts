import type { Command } from '../command.ts';
import { UsageError, optionValues } from '../command.ts';
import { openStore } from '../open-store.ts';
import type { Db } from '../../db/database.ts';
import { GreenfieldKeys } from '../../greenfield/api-keys.ts';
import { POLICIES, WOOCOMMERCE_POLICIES, isKnownPolicy, parsePermission } from '../../greenfield/permissions.ts';
import { say, sayJson } from '../output.ts';

/** The value of a single-valued option, if given; given twice is a usage error. */
function option(args: string[], name: string): string | undefined {
  const all = optionValues(args, name);
  if (all.length > 1) throw new UsageError(`${name} is given more than once`);
  return all[0];
}

async function withDb<T>(run: (db: Db) => Promise<T>): Promise<T> {
  const { db } = await openStore();
  try {
    return await run(db);
  } finally {
    await db.close();
  }
}

const POLICY_LIST = Object.values(POLICIES).map((p) => `  ${p}`).join('\n');

/** `satgate greenfield key create|list|revoke`: API keys for BTCPay Greenfield clients (the shop plugins). */
export const greenfieldCommands: Command[] = [
  {
    path: ['greenfield', 'key', 'create'],
    summary: 'create a Greenfield API key (shown once) for a store, for BTCPay plugins such as WooCommerce',
    usage:
      'satgate greenfield key create --store <api_id> [--permission <policy>]… [--label <text>] [--json]\n\n' +
      'The store is a wallet, named by its API ID (the Greenfield store id is the API ID). Without --permission\n' +
      'the key gets what the WooCommerce plugin asks for. Policies (each scoped to the store):\n' +
      `${POLICY_LIST}\n` +
      'Only a hash of the key is stored: it cannot be shown again. --json prints {"apiKey","storeId","permissions"}.',
    run: async (args) => {
      const storeId = option(args, '--store');
      if (!storeId) throw new UsageError('--store <api_id> is required');
      const asked = optionValues(args, '--permission');
      for (const p of asked) {
        const { policy, storeId: scoped } = parsePermission(p);
        if (!isKnownPolicy(policy)) throw new UsageError(`unknown permission ${JSON.stringify(p)}; known:\n${POLICY_LIST}`);
        if (scoped !== null && scoped !== storeId) throw new UsageError(`permission ${p} names another store than --store ${storeId}`);
      }
      const policies = asked.length > 0 ? asked : WOOCOMMERCE_POLICIES;
      const label = option(args, '--label') ?? 'created with satgate greenfield key create';
      await withDb(async (db) => {
        const wallet = await db.kysely.selectFrom('wallets').select(['id', 'api_id']).where('api_id', '=', storeId).executeTakeFirst();
        if (!wallet) throw new UsageError(`no wallet with API ID ${storeId}`);
        const created = await new GreenfieldKeys(db, Date.now).create({ walletId: wallet.id, storeId }, policies, label);
        if (args.includes('--json')) {
          sayJson({ apiKey: created.apiKey, storeId: created.storeId, permissions: created.permissions });
        } else {
          say`API key:     ${created.apiKey}   (shown once; only its hash is stored)`;
          say`Key id:      ${created.keyId}   (for "satgate greenfield key revoke")`;
          say`Store id:    ${created.storeId}`;
          created.permissions.forEach((p, i) => say`${i === 0 ? 'Permissions: ' : '             '}${p}`);
        }
      });
    },
  },
  {
    path: ['greenfield', 'key', 'list'],
    summary: 'list Greenfield API keys (ids, stores, permissions; never the keys)',
    usage: 'satgate greenfield key list [--store <api_id>] [--json]',
    run: async (args) => {
      const storeId = option(args, '--store');
      await withDb(async (db) => {
        const list = await new GreenfieldKeys(db, Date.now).list(storeId);
        if (args.includes('--json')) {
          sayJson(list);
          return;
        }
        if (list.length === 0) say`no Greenfield API keys`;
        for (const k of list) {
          const state = k.revokedAt === null ? 'active' : `revoked ${new Date(k.revokedAt).toISOString()}`;
          say`${k.keyId}  ${k.storeId}  ${k.hint}  ${state}  ${k.label}\n    ${k.permissions.join(' ')}`;
        }
      });
    },
  },
  {
    path: ['greenfield', 'key', 'revoke'],
    summary: 'revoke a Greenfield API key at once',
    usage: 'satgate greenfield key revoke <key_id>',
    run: async (args) => {
      const keyId = args.find((a) => !a.startsWith('--'));
      if (!keyId) throw new UsageError('the key id (gfk_…, from "satgate greenfield key list") is required');
      await withDb(async (db) => {
        if (!(await new GreenfieldKeys(db, Date.now).revoke(keyId))) throw new UsageError(`no active key ${keyId}`);
        say`revoked ${keyId}`;
      });
    },
  },
];
