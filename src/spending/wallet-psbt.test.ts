import { describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { cosigner, withVersion, VPUB_VERSION } from '../../test/support/cosigner-keys.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { buildWalletKeyPsbt } from './wallet-psbt.ts';

/** A serialized one-in one-out transaction paying `amount` to `script`. */
function previousTx(script: Uint8Array, amount: bigint): Uint8Array {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(amount);
  return Buffer.concat([Buffer.from('02000000' + '01' + '11'.repeat(32) + '00000000' + '0151' + 'ffffffff' + '01', 'hex'), value, Buffer.from([script.length]), script, Buffer.from('00000000', 'hex')]);
}

function psbtFor(key: ReturnType<typeof keyOf>, coinScript?: Uint8Array) {
  const coin = key.receive(5);
  const script = coinScript ?? coin.script;
  const prevTx = previousTx(script, 50_000n);
  const prev = Transaction.fromRaw(prevTx, { allowUnknownInputs: true, allowUnknownOutputs: true });
  const text = buildWalletKeyPsbt({
    key,
    inputs: [{ txid: prev.id, vout: 0, value: 50_000n, script, prevTx, branch: 0, index: 5 }],
    outputs: [{ script: key.receive(9).script, amount: 20_000n }],
    change: { script: key.change(2).script, amount: 29_000n, index: 2 },
  });
  return Transaction.fromPSBT(base64.decode(text), { allowLegacyWitnessUtxo: true });
}

describe('watch-only PSBTs of wallet keys', () => {
  it('cosigners registered without their origin (Electrum Vpub keys): derivations name each key’s own fingerprint with 0/i, and no global xpub is written', () => {
    const keys = [cosigner(), cosigner(), cosigner()];
    const key = keyOf({ cosigners: keys.map((k) => withVersion(k.xpub, VPUB_VERSION)), threshold: 2 }, 'regtest');
    const tx = psbtFor(key);
    expect(tx.getInput(0).bip32Derivation!.map(([, d]) => d.path)).toEqual([[0, 5], [0, 5], [0, 5]]);
    expect(tx.getOutput(1).bip32Derivation!.map(([, d]) => d.path)).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect((tx as unknown as { global: { xpub?: unknown[] } }).global.xpub).toBeUndefined();
  });

  it('refuses a coin whose script is not the wallet’s output at the stored index', () => {
    const key = keyOf({ descriptor: `wsh(sortedmulti(1,${cosigner().withOrigin}/0/*,${cosigner().withOrigin}/0/*))` }, 'regtest');
    expect(() => psbtFor(key, key.receive(6).script)).toThrow(/is not the wallet's output 0\/5/);
  });
});
