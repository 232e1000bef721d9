import { isRefusal } from '../../core/domain-errors.ts';
import { associateByOperator } from '../../dashboard/accounts.ts';
import { listAudit } from '../../security/audit.ts';
import { LOCKOUT_WRONG_CODES, unlockLogin } from '../../dashboard/login-failures.ts';
import { UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';
import { say, sayJson } from '../output.ts';

/** `satgate wallet associate <api_id> <email>`, `satgate login unlock <email>` and `satgate audit [--email E] [--limit N] [--json]`. */
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
          if (isRefusal(err)) throw new UsageError(err.kind === 'invalid-email' ? `not a valid e-mail address: ${email}` : err.message);
          throw err;
        });
        if (result.created) say`${apiId} is now associated with ${email.toLowerCase()}${result.profileCreated ? ' (new profile; they log in with POST /send_otp)' : ''}`;
        else say`${apiId} was already associated with ${email.toLowerCase()}`;
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['login', 'unlock'],
    summary: 'lift the lockout of a dashboard e-mail after too many wrong sign-in codes',
    usage:
      `satgate login unlock <email>\n\nWrong sign-in codes are counted per e-mail until a sign-in: from the 10th in a row each further one\ndoubles a wait before the next code is checked, and the ${LOCKOUT_WRONG_CODES}th locks sign-in with a code for 24 hours\n(the owner is told by mail). This forgets the count, which lifts the wait or lockout at once. Do it only\nwhen you know the owner asks for it: the count is what stops someone guessing codes.`,
    run: async (args) => {
      const [email, ...rest] = args.filter((a) => !a.startsWith('-'));
      if (!email || rest.length > 0) throw new UsageError('usage: satgate login unlock <email>');
      const { db } = await openStore();
      try {
        const { email: normalised, had } = await unlockLogin(db, email, Date.now()).catch((err: unknown) => {
          if (isRefusal(err)) throw new UsageError(err.kind === 'invalid-email' ? `not a valid e-mail address: ${email}` : err.message);
          throw err;
        });
        const now = Date.now();
        const failures = had?.failures ?? 0;
        if (!had || failures === 0) say`${normalised}: not locked (0 wrong codes in a row); nothing to do`;
        else if (had.waitUntil > now && failures >= LOCKOUT_WRONG_CODES) {
          say`${normalised}: code sign-in unlocked (it was locked until ${new Date(had.waitUntil).toISOString()} after ${failures} wrong codes in a row)`;
        } else if (had.waitUntil > now) {
          say`${normalised}: code sign-in unlocked (its next code check had to wait until ${new Date(had.waitUntil).toISOString()} after ${failures} wrong codes in a row)`;
        } else say`${normalised}: not locked; its count of ${failures} wrong codes in a row is reset`;
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
          sayJson(records.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), 2);
        } else if (records.length === 0) {
          if (email) say`no audit records for ${email}`;
          else say`no audit records yet`;
        } else {
          for (const r of records) {
            say`${`${new Date(r.at).toISOString()}  ${r.action.padEnd(19)}  ${(r.email ?? '-').padEnd(28)}  ${(r.ip ?? '-').padEnd(15)}  ${r.detail ? JSON.stringify(r.detail) : ''}`.trimEnd()}`;
          }
        }
      } finally {
        await db.close();
      }
    },
  },
];
