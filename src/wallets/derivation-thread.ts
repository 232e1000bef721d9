// Runs in the address-derivation worker thread (derivation-worker.ts): derives runs of receiving addresses for
// the pool's refills off the main thread. Each wallet's key is sent once and kept here parsed, so its chain
// node's decoded point is reused by every later batch, as on the main thread.
import { parentPort } from 'node:worker_threads';
import { parseExtendedPublicKey, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddresses } from '../bitcoin/receive-address.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import type { ThreadMessage } from '../core/request-worker.ts';
import type { DerivationReply, DerivationRequest } from './derivation-worker.ts';

const keys = new Map<number, ExtendedPublicKey>();

parentPort!.on('message', (msg: DerivationRequest & { id: number }) => {
  let reply: DerivationReply;
  try {
    if (msg.pub !== undefined) keys.set(msg.keyId, parseExtendedPublicKey(msg.pub));
    const key = keys.get(msg.keyId);
    if (!key) throw new Error(`derivation thread has no key ${msg.keyId}`);
    reply = { addresses: deriveReceiveAddresses(key, msg.from, msg.count, msg.scriptType as ScriptType, msg.network as Network) };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage({ ...reply, id: msg.id } satisfies ThreadMessage<DerivationReply>);
});
parentPort!.postMessage({ ready: true } satisfies ThreadMessage<DerivationReply>);
