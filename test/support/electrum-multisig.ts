// Electrum 4.3 (Debian package `electrum`) as the three cosigners of a 2-of-3 multisig wallet, for refund tests.
// Electrum's CLI makes no multisig wallet, so its own Python package (the interpreter of the `electrum` command)
// makes three segwit seeds, derives each seed's multisig keystore (m/1', as Electrum's wizard does) and writes one
// wallet file per cosigner: `wallet_type` "2of3", its own keystore with the private key as x1/…x3/, the others'
// as xpubs with their origin. The same package derives the first receive and change addresses. Signing then goes
// through the CLI (`electrum --regtest --offline signtransaction`), one cosigner's directory at a time.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Reads {xtype, dirs, count} on stdin; prints the cosigners' keys and the addresses Electrum derives.
const MAKE_WALLETS = String.raw`
import json, sys, os
from electrum import constants
constants.set_regtest()
from electrum import keystore
from electrum.mnemonic import Mnemonic
from electrum.bip32 import BIP32Node
from electrum.storage import WalletStorage
from electrum.wallet_db import WalletDB, FINAL_SEED_VERSION
from electrum.wallet import Wallet
from electrum.simple_config import SimpleConfig
from electrum.util import create_and_start_event_loop

req = json.load(sys.stdin)
xtype, dirs, count = req['xtype'], req['dirs'], req['count']
signers = []
for _ in dirs:
    seed = Mnemonic('en').make_seed(seed_type='segwit')
    ks = keystore.from_seed(seed, '', True)
    if xtype != BIP32Node.from_xkey(ks.xpub).xtype:
        # A segwit seed's multisig keystore is p2wsh; the same key as p2wsh-p2sh (Ypub/Upub) keeps its origin.
        other = keystore.from_xprv(BIP32Node.from_xkey(ks.xprv)._replace(xtype=xtype).to_xprv())
        other.add_key_origin(derivation_prefix=ks.get_derivation_prefix(), root_fingerprint=ks.get_root_fingerprint())
        ks = other
    signers.append((seed, ks))
paths = []
for n, d in enumerate(dirs):
    data = {'wallet_type': '%dof%d' % (req['threshold'], len(dirs)), 'seed_version': FINAL_SEED_VERSION, 'use_encryption': False}
    for j, (_, ks) in enumerate(signers):
        if j == n:
            dump = ks.dump()
        else:
            dump = keystore.from_xpub(ks.xpub).dump()
            dump['derivation'] = ks.get_derivation_prefix()
            dump['root_fingerprint'] = ks.get_root_fingerprint()
        data['x%d/' % (j + 1)] = dump
    path = os.path.join(d, 'regtest', 'wallets', 'default_wallet')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(data, f)
    paths.append(path)
loop, stop_loop, loop_thread = create_and_start_event_loop()
storage = WalletStorage(paths[0])
wallet = Wallet(WalletDB(storage.read(), manual_upgrades=False), storage, config=SimpleConfig({'electrum_path': dirs[0], 'regtest': True, 'offline': True}))
print(json.dumps({
    'wallet_type': wallet.wallet_type,
    'txin_type': wallet.txin_type,
    'cosigners': [{'xpub': ks.xpub, 'fingerprint': ks.get_root_fingerprint(), 'derivation': ks.get_derivation_prefix()} for _, ks in signers],
    'receive': [wallet.derive_address(0, i) for i in range(count)],
    'change': [wallet.derive_address(1, i) for i in range(count)],
}))
loop.call_soon_threadsafe(stop_loop.set_result, 1)
loop_thread.join(timeout=5)
`;

/** The Python interpreter the `electrum` command runs with (its shebang), which can import Electrum's package. */
function electrumPython(): string {
  const which = spawnSync('sh', ['-c', 'command -v electrum'], { encoding: 'utf8' }).stdout.trim();
  const shebang = /^#!\s*(\S+)/.exec(readFileSync(which, 'utf8').split('\n')[0] ?? '');
  return shebang?.[1] ?? 'python3';
}

export interface ElectrumCosignerKey {
  /** As Electrum shows it: Vpub (p2wsh) or Upub (p2wsh-p2sh) on regtest. */
  readonly xpub: string;
  /** Root fingerprint, 8 hex digits. */
  readonly fingerprint: string;
  /** Path of the keystore below the root (m/1' for a segwit seed's multisig keystore). */
  readonly derivation: string;
}

/** Three Electrum cosigner wallets of one m-of-3 multisig wallet, offline on regtest. */
export class ElectrumMultisig {
  private constructor(
    readonly dirs: readonly string[],
    readonly cosigners: readonly ElectrumCosignerKey[],
    /** The first receive (0/i) and change (1/i) addresses, as Electrum derives them. */
    readonly receive: readonly string[],
    readonly change: readonly string[],
    readonly txinType: string,
  ) {}

  /** `xtype`: 'p2wsh' (Zpub/Vpub, bech32) or 'p2wsh-p2sh' (Ypub/Upub, P2SH-wrapped). */
  static async create(xtype: 'p2wsh' | 'p2wsh-p2sh', count: number, threshold = 2): Promise<ElectrumMultisig> {
    const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'electrum-cosigner-')));
    const child = execFile(electrumPython(), ['-c', MAKE_WALLETS], { env: { ...process.env, HOME: dirs[0] }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    const output = new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`electrum's python exited ${code}: ${err}`))));
    });
    child.stdin!.end(JSON.stringify({ xtype, dirs, count, threshold }));
    let text: string;
    try {
      text = await output;
    } catch (err) {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      throw err;
    }
    const made = JSON.parse(text.trim().split('\n').at(-1)!) as { txin_type: string; cosigners: ElectrumCosignerKey[]; receive: string[]; change: string[] };
    return new ElectrumMultisig(dirs, made.cosigners, made.receive, made.change, made.txin_type);
  }

  /** Cosigner `n` (0-2) signs offline: the partially signed PSBT, or the raw transaction once complete. */
  async sign(n: number, psbt: string): Promise<string> {
    const dir = this.dirs[n]!;
    const { stdout } = await run('electrum', ['--regtest', '--offline', '-D', dir, 'signtransaction', psbt], { env: { ...process.env, HOME: dir }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  }

  dispose(): void {
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
