import type { Command } from '../command.ts';
import { UsageError, optionValues } from '../command.ts';
import { loadMasterKey, openStore } from '../open-store.ts';
import { OAuthClients } from '../../payments/oauth.ts';
import { rotateWebhookSecret, PREVIOUS_SECRET_OVERLAP_MS } from '../../payments/webhook-secrets.ts';
import { say, sayJson, warn } from '../output.ts';

/** `satgate client create` and `satgate webhook-secret rotate`: payment API v1 credentials. */
export const paymentCommands: Command[] = [
  {
    path: ['client', 'create'],
    summary: 'create an OAuth client for payment API v1, bound to one or more API IDs; prints its secrets once',
    usage:
      'satgate client create --api-id <id> [--api-id <id> …] [--json]\n\n' +
      'Prints the client id, the client secret and the webhook secret once; only hashes (client secret) and\n' +
      'sealed copies (webhook secret) are stored. --json prints one JSON object {client_id, client_secret, webhook_secret}.\n' +
      'A wallet that already has a webhook secret keeps it (rotate it with "satgate webhook-secret rotate").',
    run: async (args) => {
      const apiIds = optionValues(args, '--api-id');
      if (apiIds.length === 0) throw new UsageError('at least one --api-id is required');
      const { config, db } = await openStore();
      try {
        const masterKey = loadMasterKey(config);
        let created;
        try {
          created = await new OAuthClients(db, Date.now).createClient(apiIds, masterKey);
        } catch (err) {
          if (err instanceof RangeError) throw new UsageError(err.message);
          throw err;
        }
        for (const note of created.notes) warn`note: ${note}`;
        if (args.includes('--json')) {
          sayJson({ client_id: created.client_id, client_secret: created.client_secret, webhook_secret: created.webhook_secret });
        } else {
          say`client_id:      ${created.client_id}`;
          say`client_secret:  ${created.client_secret}`;
          say`webhook_secret: ${created.webhook_secret}`;
          say`bound to:       ${[...new Set(apiIds)].join(', ')}`;
          warn`Store these now: the client secret cannot be shown again.`;
        }
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['webhook-secret', 'rotate'],
    summary: "replace a wallet's webhook signing secret; the old one keeps signing for 24 h",
    usage: 'satgate webhook-secret rotate <api-id> [--json]\n\nDuring the 24 h overlap every webhook carries a v1 signature with each secret.',
    run: async (args) => {
      const apiId = args.find((a) => !a.startsWith('-'));
      if (!apiId) throw new UsageError('an API ID is required');
      const { config, db } = await openStore();
      try {
        const masterKey = loadMasterKey(config);
        const wallet = await db.kysely.selectFrom('wallets').select('id').where('api_id', '=', apiId).executeTakeFirst();
        if (!wallet) throw new UsageError(`no wallet with API ID ${apiId}`);
        const now = Date.now();
        const secret = await db.kysely.transaction().execute((trx) => rotateWebhookSecret(trx, masterKey, wallet.id, now));
        const until = new Date(now + PREVIOUS_SECRET_OVERLAP_MS).toISOString();
        if (args.includes('--json')) sayJson({ api_id: apiId, webhook_secret: secret, previous_valid_until: until });
        else {
          say`${secret}`;
          warn`The previous secret (if any) stays valid until ${until}.`;
        }
      } finally {
        await db.close();
      }
    },
  },
];
