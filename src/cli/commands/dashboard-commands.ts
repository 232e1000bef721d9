import { WalletApiError } from '../../core/errors.ts';
import { associateByOperator } from '../../dashboard/accounts.ts';
import { listAudit } from '../../dashboard/audit.ts';
import { UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';

/** `satgate wallet associate <api_id> <email>` and `satgate audit [--email E] [--limit N] [--json]`. */
export const dashboardCommands: Command[] = [
  {
    path: ['wallet', 'associate'],
    summary: "let a dashboard login (e-mail) see and act on a wallet",
    usage:
      'satgate wallet associate <api_id> <email>\n\nThe dashboard shows a wallet to a profile when the wallet was registered with that e-mail as its\nnotification_email, or when the operator vouches for it with this command (refunds move money, so\nknowing a public key is not enough). Creates the profile when the e-mail has none yet.',
    run: async (args) => {
      const [apiId, email, ...rest] = args.filter((a) => !a.startsWith('-'));
      if (!apiId || !email || rest.length > 0) throw new UsageError('usage: satgate wallet associate <api_id> <email>');
      const { db } = await openStore();
      try {
        const result = await associateByOperator(db, apiId, email, Date.now()).catch((err: unknown) => {
          if (err instanceof WalletApiError) throw new UsageError(err.code === '308' ? `not a valid e-mail address: ${email}` : err.message);
          throw err;
        });
        console.log(
          result.created
            ? `${apiId} is now associated with ${email.toLowerCase()}${result.profileCreated ? ' (new profile; they log in with POST /send_otp)' : ''}`
            : `${apiId} was already associated with ${email.toLowerCase()}`,
        );
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['audit'],
    summary: 'show the dashboard audit trail (logins, failed codes, associations, refunds)',
    usage: 'satgate audit [--email <email>] [--limit <n>] [--json]\n\nNewest last; 200 records unless --limit says otherwise.',
    run: async (args) => {
      const option = (name: string): string | undefined => {
        const i = args.indexOf(name);
        if (i < 0) return undefined;
        const v = args[i + 1];
        if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
        return v;
      };
      const email = option('--email');
      const limitText = option('--limit');
      if (limitText !== undefined && !/^[1-9][0-9]{0,5}$/.test(limitText)) throw new UsageError('--limit must be a whole number from 1 to 999999');
      const { db } = await openStore();
      try {
        const records = await listAudit(db, { ...(email !== undefined ? { email } : {}), ...(limitText ? { limit: Number(limitText) } : {}) });
        if (args.includes('--json')) {
          console.log(JSON.stringify(records.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), null, 2));
        } else if (records.length === 0) {
          console.log(email ? `no audit records for ${email}` : 'no audit records yet');
        } else {
          for (const r of records) {
            console.log(`${new Date(r.at).toISOString()}  ${r.action.padEnd(19)}  ${(r.email ?? '-').padEnd(28)}  ${(r.ip ?? '-').padEnd(15)}  ${r.detail ? JSON.stringify(r.detail) : ''}`.trimEnd());
          }
        }
      } finally {
        await db.close();
      }
    },
  },
];
