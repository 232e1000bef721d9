// Runs in the address-derivation worker thread (derivation-worker.ts): derives runs of receiving addresses for
// the pool's refills off the main thread. Each wallet's key is sent once and kept here parsed, so its chain
// node's decoded point is reused by every later batch, as on the main thread. A wallet with one extended key
// derives its run in one batch (receive-address.ts, as before); a descriptor wallet through its wallet key.
import { parentPort } from 'node:worker_threads';
import { parseExtendedPublicKey, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddresses } from '../bitcoin/receive-address.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { keyOf, type WalletKey } from '../bitcoin/wallet-key.ts';
import type { ThreadMessage } from '../core/request-worker.ts';
import type { DerivationReply, DerivationRequest } from './derivation-worker.ts';
import type { IssuedOutput } from './wallet-keys.ts';

const keys = new Map<number, { single: ExtendedPublicKey } | { wallet: WalletKey }>();

function run(msg: DerivationRequest): IssuedOutput[] {
  if (msg.descriptor !== undefined) keys.set(msg.keyId, { wallet: keyOf({ descriptor: msg.descriptor }, msg.network as Network) });
  else if (msg.pub !== undefined) keys.set(msg.keyId, { single: parseExtendedPublicKey(msg.pub) });
  const key = keys.get(msg.keyId);
  if (!key) throw new Error(`derivation thread has no key ${msg.keyId}`);
  if ('single' in key) return deriveReceiveAddresses(key.single, msg.from, msg.count, msg.scriptType as ScriptType, msg.network as Network);
  const out: IssuedOutput[] = [];
  for (let i = msg.from; i < msg.from + msg.count; i++) {
    const o = key.wallet.receive(i);
    out.push({ index: i, address: o.address, script: o.script });
  }
  return out;
}

parentPort!.on('message', (msg: DerivationRequest & { id: number }) => {
  let reply: DerivationReply;
  try {
    reply = { addresses: run(msg) };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage({ ...reply, id: msg.id } satisfies ThreadMessage<DerivationReply>);
});
parentPort!.postMessage({ ready: true } satisfies ThreadMessage<DerivationReply>);
