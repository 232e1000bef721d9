// Drives the real Electrum (Debian package `electrum`) as a regtest wallet connected to one server only,
// to prove the Electrum test server faithful: Electrum SPV-verifies what the server says.
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why the Electrum tests cannot run here, or null when they can (never skipped under CI=true). */
export function electrumUnavailable(): string | null {
  if (process.env.CI === 'true') return null;
  const found = (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, 'electrum'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? null : 'electrum is not installed (Debian package `electrum`): skipped locally, required when CI=true';
}

export interface ElectrumTx {
  txid: string;
  height: number;
  confirmations: number;
  bc_value: string;
}

/** A watch-only Electrum regtest wallet (restored from an account xpub/vpub) in its own daemon. */
export class ElectrumWallet {
  private constructor(private readonly dir: string) {}

  static async start(accountKey: string, server: { host: string; port: number }): Promise<ElectrumWallet> {
    const dir = mkdtempSync(join(tmpdir(), 'satgate-electrum-'));
    const w = new ElectrumWallet(dir);
    await w.cli(['--offline', 'restore', accountKey]);
    // One server, ours, and never another: auto_connect off.
    for (const [k, v] of [
      ['auto_connect', 'false'],
      ['oneserver', 'true'],
      ['server', `${server.host}:${server.port}:t`],
      ['log_to_file', 'true'],
    ]) {
      await w.cli(['--offline', 'setconfig', k!, v!]);
    }
    await w.cli(['daemon', '-d']);
    await w.cli(['load_wallet']);
    return w;
  }

  async cli(args: string[]): Promise<string> {
    const { stdout } = await run('electrum', ['--regtest', '-D', this.dir, ...args], { timeout: 60_000, env: { ...process.env, HOME: this.dir } });
    return stdout.trim();
  }

  async json<T>(args: string[]): Promise<T> {
    return JSON.parse(await this.cli(args)) as T;
  }

  async info(): Promise<{ connected: boolean; blockchain_height: number; server_height: number }> {
    return this.json(['getinfo']);
  }

  async history(): Promise<ElectrumTx[]> {
    const h = await this.json<{ transactions: ElectrumTx[] }>(['onchain_history']);
    return h.transactions;
  }

  async addresses(): Promise<string[]> {
    return this.json(['listaddresses', '--receiving']);
  }

  /** Waits until Electrum's state satisfies `check` (polled; Electrum syncs in the background). */
  async until<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    let last: T | undefined;
    for (;;) {
      try {
        last = await read();
        if (check(last)) return last;
      } catch {
        // The daemon may still be starting.
      }
      if (Date.now() > end) throw new Error(`Electrum did not reach the expected state; last: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  async logs(): Promise<string> {
    const { stdout } = await run('sh', ['-c', `cat ${JSON.stringify(this.dir)}/regtest/logs/*.log 2>/dev/null || true`]);
    return stdout;
  }

  async stop(): Promise<void> {
    await this.cli(['stop']).catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}
