/** Receiving addresses derived from a merchant's extended public key (child 0/i). */
import type { HDKey } from '@scure/bip32';
import { addressFromScript, scriptForPublicKey } from './address.ts';
import { keyFitsNetwork, type ExtendedPublicKey } from './extended-key.ts';
import type { Network } from './networks.ts';
import type { ScriptType } from './script-type.ts';

/** One derived address. */
export interface DerivedAddress {
  readonly index: number;
  readonly address: string;
  /** The scriptPubKey, which is what the chain watcher matches on. */
  readonly script: Uint8Array;
  /** 33-byte compressed public key of the child. */
  readonly publicKey: Uint8Array;
}

/** 0 is the external (receive) chain, 1 the internal (change) chain. */
export type Chain = 0 | 1;

const MAX_INDEX = 0x7fffffff;

// One cached chain node per parsed key object: deriving it costs as much as a whole address.
const chainNodes = new WeakMap<ExtendedPublicKey, [HDKey | undefined, HDKey | undefined]>();

function chainNode(key: ExtendedPublicKey, chain: Chain): HDKey {
  let entry = chainNodes.get(key);
  if (!entry) {
    entry = [undefined, undefined];
    chainNodes.set(key, entry);
  }
  const cached = entry[chain];
  if (cached) return cached;
  const node = key.hd.deriveChild(chain);
  entry[chain] = node;
  return node;
}

/** Derive the address at `chain/index` below the key (non-hardened, public derivation). */
export function deriveAddress(key: ExtendedPublicKey, chain: Chain, index: number, scriptType: ScriptType, network: Network): DerivedAddress {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new RangeError('address index must be an integer from 0 to 2^31-1');
  }
  if (!keyFitsNetwork(key, network)) {
    throw new RangeError(`a ${key.kind} key cannot derive addresses for ${network}`);
  }
  const child = chainNode(key, chain).deriveChild(index);
  const publicKey = child.publicKey;
  if (!publicKey) throw new Error('derived node has no public key');
  const script = scriptForPublicKey(publicKey, scriptType);
  const address = addressFromScript(script, network);
  if (address === undefined) throw new Error('derived script has no address');
  return { index, address, script, publicKey };
}

/** Derive receiving address `index` of the key: its child `0/index`, encoded as the script type. */
export function deriveReceiveAddress(key: ExtendedPublicKey, index: number, scriptType: ScriptType, network: Network): DerivedAddress {
  return deriveAddress(key, 0, index, scriptType, network);
}

/** Derive `count` consecutive receiving addresses starting at `from`. */
export function deriveReceiveAddresses(key: ExtendedPublicKey, from: number, count: number, scriptType: ScriptType, network: Network): DerivedAddress[] {
  const out: DerivedAddress[] = [];
  for (let i = 0; i < count; i++) out.push(deriveAddress(key, 0, from + i, scriptType, network));
  return out;
}
