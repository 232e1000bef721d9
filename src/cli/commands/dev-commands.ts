import { loadConfig } from '../../config/config.ts';
import { UsageError, type Command } from '../command.ts';
import { say, warnText } from '../output.ts';
import { findServer } from '../find-server.ts';

async function callDev(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const server = await findServer(loadConfig());
  if (!server.answers) {
    const what = server.note.replace(/^satgate: /, '');
    throw new UsageError(server.pid !== undefined ? what : `${what}; start it with "npm start" (development mode) first`);
  }
  warnText(server.note);
  const url = `${server.url}${path}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new UsageError(`the satgate server at ${server.url} stopped answering`);
  }
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status === 404) throw new UsageError('the server is not in development mode (a node is configured), so it has no dev chain');
  if (answer.return === '998') throw new UsageError(`the server could not do it (${String(answer.status)}); the server's log says why`);
  if (answer.return !== '0') throw new UsageError(String(answer.status ?? `HTTP ${res.status}`));
  return answer;
}

/** `satgate dev pay <address> <btc>` and `satgate dev mine [n]`, talking to a server in development mode. */
export const devCommands: Command[] = [
  {
    path: ['dev', 'pay'],
    summary: 'development mode: pay a regtest address from the built-in payer',
    usage: 'satgate dev pay <address> <btc>\n\nExample: satgate dev pay bcrt1q… 0.001',
    run: async (args) => {
      const [address, btc] = args.filter((a) => !a.startsWith('-'));
      if (!address || !btc) throw new UsageError('usage: satgate dev pay <address> <btc>');
      const answer = await callDev('/dev/pay', { address, btc });
      say`sent ${btc} BTC to ${address}: txid ${String(answer.txid)} (unconfirmed; "satgate dev mine" confirms it)`;
    },
  },
  {
    path: ['dev', 'mine'],
    summary: 'development mode: mine blocks on the built-in chain (default 1)',
    usage: 'satgate dev mine [n]',
    run: async (args) => {
      const n = args.find((a) => !a.startsWith('-'));
      if (n !== undefined && !/^\d{1,4}$/.test(n)) throw new UsageError('n must be a whole number of blocks');
      const answer = await callDev('/dev/mine', n ? { blocks: Number(n) } : {});
      say`mined ${(answer.blocks as string[]).length} block(s); height ${String(answer.height)}`;
    },
  },
];
