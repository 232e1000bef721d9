import { writeFileSync } from 'node:fs';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import { loadMasterKey, openStore } from '../open-store.ts';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/database.ts';
import type { MasterKey } from '../../security/master-key.ts';
import { PartnerInputError, PartnerKeys } from '../../partners/partner-keys.ts';
import { PartnerWallets } from '../../partners/partner-wallets.ts';
import { Kyc, KycReviewError } from '../../partners/kyc.ts';
import { say, sayJson, warn } from '../output.ts';

/** The value of `--name <value>` (or `--name=value`), if given. */
function option(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === name) {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
      return v;
    }
    if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
  }
  return undefined;
}

/** Positional arguments (those not an option or an option's value). */
function positional(args: string[], valued: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (valued.includes(a)) i++;
    else if (!a.startsWith('--')) out.push(a);
  }
  return out;
}

async function withStore<T>(run: (s: { config: Config; db: Db; masterKey: MasterKey }) => Promise<T>): Promise<T> {
  const { config, db } = await openStore();
  try {
    return await run({ config, db, masterKey: loadMasterKey(config) });
  } catch (err) {
    if (err instanceof PartnerInputError || err instanceof KycReviewError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}

function keys(s: { config: Config; db: Db; masterKey: MasterKey }): PartnerKeys {
  return new PartnerKeys(s.db, s.masterKey, { testNetwork: s.config.testNetwork, allowPrivateWebhooks: s.config.allowPrivateWebhooks });
}

function kyc(s: { db: Db; masterKey: MasterKey }): Kyc {
  const wallets = new PartnerWallets({ db: s.db, masterKey: s.masterKey, clock: Date.now, isSupportedCurrency: () => false });
  return new Kyc(s.db, s.masterKey, Date.now, wallets);
}

/** `satgate partner create|list|revoke` and `satgate kyc list|show|approve|reject`. */
export const partnerCommands: Command[] = [
  {
    path: ['partner', 'create'],
    summary: 'issue a partner key (shown once) for a platform that creates merchant wallets',
    usage:
      'satgate partner create --name <name> [--test] --settlement-address <address> [--webhook-url <url>] [--json]\n\n' +
      '--test makes a sandbox partner whose merchants get wallets on the test network. Withdrawals pay the\n' +
      'settlement address, which must be valid on that network. The webhook URL hears wallet_status and\n' +
      'withdrawal_status changes, signed with the webhook secret printed here (X-Satgate-Signature).\n' +
      'Only a hash of the key is stored: it cannot be shown again.',
    run: async (args) => {
      const name = option(args, '--name');
      const settlementAddress = option(args, '--settlement-address');
      const webhookUrl = option(args, '--webhook-url');
      if (!name) throw new UsageError('--name is required');
      if (!settlementAddress) throw new UsageError('--settlement-address is required');
      await withStore(async (s) => {
        const created = await keys(s).create({ name, test: args.includes('--test'), settlementAddress, ...(webhookUrl ? { webhookUrl } : {}) }, Date.now());
        const p = created.partner;
        if (args.includes('--json')) {
          sayJson({ id: Number(p.id), name: p.name, mode: p.mode, network: p.network, partner_auth_key: created.partnerAuthKey, webhook_secret: created.webhookSecret });
        } else {
          say`partner:            ${p.id} ${p.name} (${p.mode}, ${p.network})`;
          say`partner_auth_key:   ${created.partnerAuthKey}`;
          say`webhook_secret:     ${created.webhookSecret}`;
          say`settlement address: ${p.settlement_address}`;
          say`webhook URL:        ${p.webhook_url ?? '(none)'}`;
          warn`Give the key to the partner now: it cannot be shown again.`;
        }
      });
    },
  },
  {
    path: ['partner', 'list'],
    summary: 'list partners (keys are never shown)',
    usage: 'satgate partner list [--json]',
    run: async (args) => {
      await withStore(async (s) => {
        const rows = (await keys(s).list()).map((p) => ({
          id: Number(p.id),
          name: p.name,
          mode: p.mode,
          network: p.network,
          key: `${p.key_hint}…`,
          settlement_address: p.settlement_address,
          webhook_url: p.webhook_url,
          revoked: p.revoked_at === null ? null : new Date(Number(p.revoked_at)).toISOString(),
        }));
        if (args.includes('--json')) sayJson(rows, 2);
        else if (rows.length === 0) say`no partners yet (satgate partner create)`;
        else for (const p of rows) say`${p.id}  ${p.name}  ${p.mode}  ${p.key}  ${p.settlement_address}${p.revoked ? `  revoked ${p.revoked}` : ''}`;
      });
    },
  },
  {
    path: ['partner', 'revoke'],
    summary: "revoke a partner's key; its merchant wallets stay, partner calls are refused",
    usage: 'satgate partner revoke <id or key prefix shown by partner list>',
    run: async (args) => {
      const which = positional(args, [])[0];
      if (!which) throw new UsageError('a partner id is required');
      await withStore(async (s) => {
        const row = await keys(s).revoke(which.replace(/…$/, ''), Date.now());
        if (!row) throw new UsageError(`no partner ${which}`);
        say`partner ${row.id} (${row.name}) revoked at ${new Date(Number(row.revoked_at)).toISOString()}`;
      });
    },
  },
  {
    path: ['kyc', 'list'],
    summary: 'list KYC documents waiting for review (--all for every one)',
    usage: 'satgate kyc list [--all] [--json]',
    run: async (args) => {
      await withStore(async (s) => {
        const docs = await kyc(s).list(args.includes('--all') ? undefined : 'pending_kyc');
        if (args.includes('--json')) sayJson(docs, 2);
        else if (docs.length === 0) say`no documents waiting for review`;
        else for (const d of docs) say`${d.merchant_api_id}  ${d.doc_id}  ${d.mime_type}  ${d.size_bytes} B  ${d.wallet_status}  ${d.partner}/${d.partner_merchant_id}  ${d.description}`;
      });
    },
  },
  {
    path: ['kyc', 'show'],
    summary: 'write one KYC document out to a file for review',
    usage: 'satgate kyc show <merchant_api_id> <doc_id> --out <file>\n\nThe file is created with mode 0600 and must not exist yet.',
    run: async (args) => {
      const [apiId, docId] = positional(args, ['--out']);
      const out = option(args, '--out');
      if (!apiId || !docId) throw new UsageError('a merchant_api_id and a doc_id are required');
      if (!out) throw new UsageError('--out <file> is required');
      await withStore(async (s) => {
        const doc = await kyc(s).show(apiId, docId);
        try {
          writeFileSync(out, doc.bytes, { mode: 0o600, flag: 'wx' });
        } catch (err) {
          throw new UsageError(`cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
        say`${out}: ${doc.mimeType}, ${doc.bytes.length} bytes${doc.metadata ? `, metadata ${JSON.stringify(doc.metadata)}` : ''}`;
      });
    },
  },
  {
    path: ['kyc', 'approve'],
    summary: 'approve a partner merchant wallet: it becomes active and may withdraw',
    usage: 'satgate kyc approve <merchant_api_id>',
    run: async (args) => {
      const apiId = positional(args, [])[0];
      if (!apiId) throw new UsageError('a merchant_api_id is required');
      await withStore(async (s) => {
        const { changed } = await kyc(s).approve(apiId);
        say`${apiId} ${changed ? 'is active' : 'was already active'}`;
      });
    },
  },
  {
    path: ['kyc', 'reject'],
    summary: 'reject a partner merchant wallet with a reason the partner receives',
    usage: 'satgate kyc reject <merchant_api_id> --reason <text>',
    run: async (args) => {
      const apiId = positional(args, ['--reason'])[0];
      const reason = option(args, '--reason');
      if (!apiId) throw new UsageError('a merchant_api_id is required');
      if (!reason) throw new UsageError('--reason is required');
      await withStore(async (s) => {
        const { changed } = await kyc(s).reject(apiId, reason);
        say`${apiId} ${changed ? 'is rejected' : 'was already rejected'}`;
      });
    },
  },
];
