/** Receiving addresses derived from a merchant's extended public key (child 0/i). */
import { addressFromScript, scriptForPublicKey } from './address.ts';
import { keyFitsNetwork, type ExtendedPublicKey } from './extended-key.ts';
import type { Network } from './networks.ts';
import type { ScriptType } from './script-type.ts';
import { ChildKeyDeriver } from './child-key.ts';

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

// One deriver per parsed key object and chain: the chain node costs as much as a whole address to
// derive, and the deriver keeps its decoded point so each address costs one multiplication.
const chainNodes = new WeakMap<ExtendedPublicKey, [ChildKeyDeriver | undefined, ChildKeyDeriver | undefined]>();

function chainNode(key: ExtendedPublicKey, chain: Chain): ChildKeyDeriver {
  let entry = chainNodes.get(key);
  if (!entry) {
    entry = [undefined, undefined];
    chainNodes.set(key, entry);
  }
  const cached = entry[chain];
  if (cached) return cached;
  const node = key.hd.deriveChild(chain);
  if (!node.publicKey || !node.chainCode) throw new Error('derived chain node has no public key');
  const deriver = new ChildKeyDeriver(node.publicKey, node.chainCode);
  entry[chain] = deriver;
  return deriver;
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new RangeError('address index must be an integer from 0 to 2^31-1');
  }
}

function checkNetwork(key: ExtendedPublicKey, network: Network): void {
  if (!keyFitsNetwork(key, network)) {
    throw new RangeError(`a ${key.kind} key cannot derive addresses for ${network}`);
  }
}

function addressOf(index: number, publicKey: Uint8Array, scriptType: ScriptType, network: Network): DerivedAddress {
  const script = scriptForPublicKey(publicKey, scriptType);
  const address = addressFromScript(script, network);
  if (address === undefined) throw new Error('derived script has no address');
  return { index, address, script, publicKey };
}

/** Derive the address at `chain/index` below the key (non-hardened, public derivation). */
export function deriveAddress(key: ExtendedPublicKey, chain: Chain, index: number, scriptType: ScriptType, network: Network): DerivedAddress {
  checkIndex(index);
  checkNetwork(key, network);
  return addressOf(index, chainNode(key, chain).publicKeyAt(index), scriptType, network);
}

/** Derive receiving address `index` of the key: its child `0/index`, encoded as the script type. */
export function deriveReceiveAddress(key: ExtendedPublicKey, index: number, scriptType: ScriptType, network: Network): DerivedAddress {
  return deriveAddress(key, 0, index, scriptType, network);
}

/** Derive `count` consecutive receiving addresses starting at `from` (a pool refill's run: keys derived together). */
export function deriveReceiveAddresses(key: ExtendedPublicKey, from: number, count: number, scriptType: ScriptType, network: Network): DerivedAddress[] {
  if (count === 0) return [];
  checkIndex(from);
  checkIndex(from + count - 1);
  checkNetwork(key, network);
  return chainNode(key, 0)
    .publicKeysFrom(from, count)
    .map((publicKey, i) => addressOf(from + i, publicKey, scriptType, network));
}
