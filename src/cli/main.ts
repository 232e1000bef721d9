import { ConfigError } from '../config/config.ts';
import { UsageError, type Command } from './command.ts';
import { VERSION } from '../core/version.ts';
import { say, sayText, warn, warnText } from './output.ts';

// Loaded on demand, in this order (the overview's): `satgate start` needs only the first, and every module the
// others pull in would delay its first /health answer (issue 39).
const serverCommands = () => import('./commands/server-commands.ts').then((m) => m.serverCommands);
const COMMAND_MODULES: (() => Promise<Command[]>)[] = [
  serverCommands,
  () => import('./commands/wallet-commands.ts').then((m) => m.walletCommands),
  () => import('./commands/webhook-commands.ts').then((m) => m.webhookCommands),
  () => import('./commands/payment-commands.ts').then((m) => m.paymentCommands),
  () => import('./commands/dashboard-commands.ts').then((m) => m.dashboardCommands),
  () => import('./commands/spend-commands.ts').then((m) => m.spendCommands),
  () => import('./commands/key-origin-commands.ts').then((m) => m.keyOriginCommands),
  () => import('./commands/partner-commands.ts').then((m) => m.partnerCommands),
  () => import('./commands/greenfield-commands.ts').then((m) => m.greenfieldCommands),
  () => import('./commands/report-commands.ts').then((m) => m.reportCommands),
  () => import('./commands/ops-commands.ts').then((m) => m.opsCommands),
  () => import('./commands/db-commands.ts').then((m) => m.dbCommands),
  () => import('./commands/dev-commands.ts').then((m) => m.devCommands),
];
/** The words of the server commands, which no other command's path begins with. */
const SERVER_WORDS = new Set(['start', 'migrate']);

let COMMANDS: Command[] = [];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.path.join(' ').length));
  const lines = COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return `satgate: self-hosted Bitcoin payments\n\nUsage: satgate <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "satgate <command> --help" for a command's options.`;
}

/** Finds the longest command path that prefixes argv. */
function find(argv: string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const c of COMMANDS) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : undefined;
}

async function main(argv: string[]): Promise<number> {
  COMMANDS = SERVER_WORDS.has(argv[0] ?? '') ? await serverCommands() : (await Promise.all(COMMAND_MODULES.map((load) => load()))).flat();
  if (argv[0] === '--version' || argv[0] === '-v') {
    say`${VERSION}`;
    return 0;
  }
  // Machine-readable list of every command path, one a line: the package test runs "--help" for each.
  if (argv[0] === '--list-commands') {
    for (const c of COMMANDS) say`${c.path.join(' ')}`;
    return 0;
  }
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    sayText(overview());
    return 0;
  }
  const found = find(argv);
  if (!found) {
    const group = COMMANDS.filter((c) => c.path[0] === argv[0]);
    if (group.length > 0 && (argv.length === 1 || argv.includes('--help'))) {
      say`Commands under "${argv[0]}":`;
      for (const c of group) say`  satgate ${c.path.join(' ')}  ${c.summary}`;
      return argv.includes('--help') ? 0 : 2;
    }
    warn`unknown command: ${argv.join(' ')}`;
    warnText(`\n${overview()}`);
    return 2;
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    sayText(`${found.command.summary}\n\nUsage: ${found.command.usage}`);
    return 0;
  }
  const code = await found.command.run(found.rest);
  return typeof code === 'number' ? code : 0;
}

try {
  const code = await main(process.argv.slice(2));
  // -1: a long-running command (the server) keeps the process alive.
  if (code >= 0) process.exit(code);
} catch (err) {
  if (err instanceof UsageError || err instanceof ConfigError) {
    warnText(`satgate: ${err.message}`);
    process.exit(2);
  }
  warnText(`satgate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
