import { ConfigError } from '../config/config.ts';
import { UsageError, type Command } from './command.ts';
import { serverCommands } from './commands/server-commands.ts';
import { walletCommands } from './commands/wallet-commands.ts';
import { webhookCommands } from './commands/webhook-commands.ts';
import { devCommands } from './commands/dev-commands.ts';
import { paymentCommands } from './commands/payment-commands.ts';
import { spendCommands } from './commands/spend-commands.ts';
import { keyOriginCommands } from './commands/key-origin-commands.ts';
import { dashboardCommands } from './commands/dashboard-commands.ts';
import { dbCommands } from './commands/db-commands.ts';
import { partnerCommands } from './commands/partner-commands.ts';
import { opsCommands } from './commands/ops-commands.ts';
import { greenfieldCommands } from './commands/greenfield-commands.ts';
import { reportCommands } from './commands/report-commands.ts';
import { VERSION } from '../core/version.ts';
import { say, sayText, warn, warnText } from './output.ts';

const COMMANDS: Command[] = [...serverCommands, ...walletCommands, ...webhookCommands, ...paymentCommands, ...dashboardCommands, ...spendCommands, ...keyOriginCommands, ...partnerCommands, ...greenfieldCommands, ...reportCommands, ...opsCommands, ...dbCommands, ...devCommands];

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
