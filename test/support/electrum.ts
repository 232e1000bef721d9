// Electrum (Debian package `electrum`) as an offline signer for PSBT tests: a wallet created and restored
// from its seed in a temporary directory, never touching the network.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** True when the `electrum` command runs here. */
export function electrumAvailable(): boolean {
  const r = spawnSync('electrum', ['version', '--offline'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: tmpdir() } });
  return r.status === 0;
}

/** An offline Electrum regtest wallet restored from a seed Electrum generated. */
export class ElectrumWallet {
  private constructor(
    readonly dir: string,
    readonly seed: string,
    readonly mpk: string,
  ) {}

  private static async cli(dir: string, args: string[]): Promise<string> {
    const { stdout } = await run('electrum', ['--regtest', '--offline', '-D', dir, ...args], { env: { ...process.env, HOME: dir }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  }

  /** Lets Electrum generate a segwit seed, then restores a second wallet from that seed (the one that signs). */
  static async createAndRestore(): Promise<ElectrumWallet> {
    const first = mkdtempSync(join(tmpdir(), 'electrum-new-'));
    const created = JSON.parse(await ElectrumWallet.cli(first, ['create', '--seed_type', 'segwit'])) as { seed: string };
    rmSync(first, { recursive: true, force: true });
    const dir = mkdtempSync(join(tmpdir(), 'electrum-restored-'));
    await ElectrumWallet.cli(dir, ['restore', created.seed]);
    const mpk = await ElectrumWallet.cli(dir, ['getmpk']);
    return new ElectrumWallet(dir, created.seed, mpk);
  }

  /** `signtransaction`: a raw transaction (hex) when complete, else the PSBT. */
  signTransaction(psbtBase64: string): Promise<string> {
    return ElectrumWallet.cli(this.dir, ['signtransaction', psbtBase64]);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
