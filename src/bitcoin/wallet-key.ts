/**
 * One wallet-key type for every kind a wallet can be: `keyOf(source, network)` gives `{ kind, receive(i),
 * change(i), origins, describe() }`. Single-key wallets (today's xpub/ypub/zpub rows with their script type) derive
 * through receive-address.ts exactly as before; descriptors, BTCPay derivation schemes and multisig cosigner sets
 * derive through descriptors/. Callers never switch on the kind: the output-kinds row says what differs.
 */
import { addressFromScript } from './address.ts';
import { parseExtendedPublicKey, keyFitsNetwork, type ExtendedPublicKey } from './extended-key.ts';
import { keyOrigin } from './key-origin.ts';
import { isTestNetwork, type Network } from './networks.ts';
import { OUTPUT_KINDS, type OutputKind, type OutputSpend } from './output-kinds.ts';
import { deriveAddress } from './receive-address.ts';
import type { ScriptType } from './script-type.ts';
import { descriptorChecksum } from './descriptors/checksum.ts';
import { deriveOutput, type DerivedKey } from './descriptors/derive.ts';
import { multisigFromCosigners, parseDerivationScheme } from './descriptors/derivation-scheme.ts';
import { refuse } from './descriptors/errors.ts';
import { formatOrigin, HARDENED, XPUB_VERSIONS, type KeyExpression } from './descriptors/key-expression.ts';
import { parseDescriptor, type Descriptor } from './descriptors/parse.ts';
import type { MultisigKind } from './output-kinds.ts';
import { HDKey } from '@scure/bip32';

/** One output of the wallet: its script, address, what spending it needs, and each cosigner's key there. */
export interface WalletOutput extends OutputSpend {
  readonly branch: 0 | 1;
  readonly index: number;
  readonly address: string;
  /** Per cosigner (one for single-key wallets): the key and its BIP32 origin, for PSBT derivation fields. */
  readonly keys: readonly DerivedKey[];
}

/** A cosigner as PSBTs name it: master fingerprint, path to the account key, and the account key (xpub/tpub form). */
export interface CosignerOrigin {
  readonly fingerprint: number;
  readonly path: readonly number[];
  readonly xpub: string;
}

export interface WalletKey {
  readonly kind: OutputKind;
  readonly network: Network;
  /** Signatures needed (1 for single-key and taproot). */
  readonly threshold: number;
  /** Multisig: BIP67-sorted (`sortedmulti`) or kept in order (`multi`, BTCPay `-[keeporder]`). */
  readonly sorted: boolean;
  readonly origins: readonly CosignerOrigin[];
  receive(index: number): WalletOutput;
  change(index: number): WalletOutput;
  /** The canonical descriptor with its checksum, receive and change as one BIP389 `<0;1>` path. */
  describe(): string;
}

/** Where a wallet key comes from. */
export type WalletKeySource =
  /** Today's wallet row: an xpub/ypub/zpub/tpub/upub/vpub, its script type and the operator-given origin. */
  | { readonly pub: string; readonly scriptType: ScriptType; readonly origin?: string | null }
  | { readonly descriptor: string }
  | { readonly derivationScheme: string }
  | { readonly cosigners: readonly string[]; readonly threshold: number; readonly kind?: MultisigKind; readonly sorted?: boolean };

const checkIndex = (index: number): void => {
  if (!Number.isSafeInteger(index) || index < 0 || index > 0x7fffffff) throw new RangeError('address index must be an integer from 0 to 2^31-1');
};

function xpubText(key: ExtendedPublicKey): string {
  // The SLIP-132 prefixes are not BIP32 serializations; descriptors and PSBTs carry the xpub/tpub form.
  const versions = key.testnet ? XPUB_VERSIONS.test : XPUB_VERSIONS.mainnet;
  return new HDKey({ versions, depth: key.depth, parentFingerprint: key.parentFingerprint, index: key.childIndex, chainCode: key.chainCode, publicKey: key.publicKey }).publicExtendedKey;
}

function singleKey(source: { pub: string; scriptType: ScriptType; origin?: string | null }, network: Network): WalletKey {
  const key = parseExtendedPublicKey(source.pub);
  if (!keyFitsNetwork(key, network)) throw new RangeError(`a ${key.kind} key cannot derive addresses for ${network}`);
  const origin = keyOrigin(key, source.origin);
  const xpub = xpubText(key);
  const output = (branch: 0 | 1, index: number): WalletOutput => {
    const a = deriveAddress(key, branch, index, source.scriptType, network);
    const spend = OUTPUT_KINDS[source.scriptType].spend([a.publicKey]);
    return { ...spend, branch, index, address: a.address, keys: [{ publicKey: a.publicKey, fingerprint: origin.fingerprint, path: [...origin.prefix, branch, index] }] };
  };
  return {
    kind: source.scriptType,
    network,
    threshold: 1,
    sorted: true,
    origins: [{ fingerprint: origin.fingerprint, path: origin.prefix, xpub }],
    receive: (i) => output(0, i),
    change: (i) => output(1, i),
    describe: () => {
      // A deep key without a known origin is its own origin: PSBT derivations name its fingerprint with 0/i.
      const body = OUTPUT_KINDS[source.scriptType].descriptor(`${formatOrigin({ fingerprint: origin.fingerprint, path: origin.prefix })}${xpub}/<0;1>/*`);
      return `${body}#${descriptorChecksum(body)}`;
    },
  };
}

/** How a key's receive and change branches are reached: a `<0;1>` step, or a `/0/*` whose sibling `/1/*` is change. */
function branchPlan(d: Descriptor): (key: KeyExpression, branch: 0 | 1) => KeyExpression {
  if (!d.ranged) return refuse('not-ranged', 'a wallet descriptor must be ranged: end every key in /0/* or /<0;1>/*');
  if (d.keys.some((k) => !k.xpub)) return refuse('not-ranged', 'a wallet descriptor takes extended keys (xpub/tpub), not fixed public keys');
  if (d.multipath > 2) return refuse('no-change-branch', `a wallet descriptor has two branches (receive;change), not ${d.multipath}`);
  for (const k of d.keys) {
    const last = k.steps.at(-1);
    const two = typeof last === 'object' && last.length === 2;
    if (d.multipath === 2 && !two) return refuse('no-change-branch', 'with <0;1> steps, every key needs its multipath step just before /*');
    if (d.multipath === 1 && last !== 0) return refuse('no-change-branch', 'a wallet descriptor needs a receive branch: end keys in /0/* (change is /1/*) or /<0;1>/*');
  }
  if (d.multipath === 2) return (k) => k;
  return (k, branch) => ({ ...k, steps: [...k.steps.slice(0, -1), branch] });
}

function fromDescriptor(d: Descriptor, network: Network): WalletKey {
  if (d.testnet !== undefined && d.testnet !== isTestNetwork(network)) {
    return refuse('wrong-network', `the descriptor's keys are for ${d.testnet ? 'test networks (tpub)' : 'mainnet (xpub)'}, not ${network}`);
  }
  const plan = branchPlan(d);
  // Without a multipath step each branch is its own descriptor (…/0/* and …/1/*), so each has its own derivers.
  const perBranch: [Descriptor, Descriptor] =
    d.multipath === 2 ? [d, d] : [{ ...d, keys: d.keys.map((k) => plan(k, 0)) }, { ...d, keys: d.keys.map((k) => plan(k, 1)) }];
  const output = (branch: 0 | 1, index: number): WalletOutput => {
    checkIndex(index);
    const out = deriveOutput(perBranch[branch], d.multipath === 2 ? branch : 0, index);
    const address = addressFromScript(out.script, network);
    if (address === undefined) throw new Error('derived script has no address');
    return { ...out, branch, index, address };
  };
  const canonical = d.multipath === 2 ? d : parseDescriptor(d.body.replaceAll('/0/*', '/<0;1>/*'));
  return {
    kind: d.kind,
    network,
    threshold: d.policy?.threshold ?? 1,
    sorted: d.policy?.sorted ?? true,
    origins: d.keys.map((k) => {
      const hd = k.xpub!.hd;
      const origin = k.origin ?? { fingerprint: hd.fingerprint, path: [] };
      // Steps between the given key and the branch step are part of the account's path.
      const fixed = k.steps.slice(0, -1).filter((s): s is number => typeof s === 'number' && s < HARDENED);
      let account = hd;
      for (const s of fixed) account = account.deriveChild(s);
      return { fingerprint: origin.fingerprint, path: [...origin.path, ...fixed], xpub: fixed.length ? account.publicExtendedKey : k.xpub!.text };
    }),
    receive: (i) => output(0, i),
    change: (i) => output(1, i),
    describe: () => canonical.text,
  };
}

/** The wallet key of a source on a network; throws DescriptorError (or InvalidExtendedKeyError for a bad `pub`). */
export function keyOf(source: WalletKeySource, network: Network): WalletKey {
  if ('pub' in source) return singleKey(source, network);
  if ('descriptor' in source) return fromDescriptor(parseDescriptor(source.descriptor), network);
  if ('derivationScheme' in source) return fromDescriptor(parseDerivationScheme(source.derivationScheme), network);
  return fromDescriptor(multisigFromCosigners({ threshold: source.threshold, keys: source.cosigners, kind: source.kind, sorted: source.sorted }), network);
}

/** What of a wallet row the wallet key is read from (the `wallets` columns of the same names). */
export interface WalletKeyRow {
  readonly pub: string;
  readonly script_type: string;
  /** The canonical descriptor of a wallet registered as a descriptor, scheme or cosigner set; null for one key. */
  readonly descriptor?: string | null;
  readonly key_origin?: string | null;
}

/**
 * The wallet key of a stored wallet: its descriptor when it has one, else its extended key and script type (the
 * wallets registered from one key, which derive exactly as before). Every caller that derives a wallet's outputs
 * goes through here.
 */
export function walletKeyOf(row: WalletKeyRow, network: Network): WalletKey {
  if (row.descriptor) return keyOf({ descriptor: row.descriptor }, network);
  return keyOf({ pub: row.pub, scriptType: row.script_type as ScriptType, origin: row.key_origin ?? null }, network);
}

// "m-of-" cosigner lists (BTCPay's multisig scheme, or SLIP-132 Ypub/Zpub/Upub/Vpub keys), with -[option]s.
const COSIGNER_LIST = /^(\d{1,2})-of((?:-[A-Za-z0-9]+)+)((?:-\[[A-Za-z0-9]+\])*)$/;
const SLIP132_MULTISIG_PREFIX = /^[YZUV]pub/;

/**
 * Reads a wallet written as text in one of the forms that are not a single extended key: an output descriptor
 * (it has a `(`), a BTCPay derivation scheme (`xpub…-[option]`, `m-of-xpub1-xpub2…`), or an `m-of-` list of SLIP-132
 * multisig keys (the prefix gives the kind; only `-[keeporder]` applies). Undefined for any other text (a single
 * extended key, read as before). Throws DescriptorError naming the part that is refused.
 */
export function parseWalletText(text: string): Descriptor | undefined {
  if (text.includes('(') || text.includes('#')) return parseDescriptor(text);
  const list = COSIGNER_LIST.exec(text);
  if (list && list[2]!.slice(1).split('-').some((k) => SLIP132_MULTISIG_PREFIX.test(k))) {
    const options = (list[3]!.match(/\[([A-Za-z0-9]+)\]/g) ?? []).map((o) => o.slice(1, -1).toLowerCase());
    const other = options.find((o) => o !== 'keeporder');
    if (other) return refuse('unsupported', `the option -[${other}] does not apply to Ypub/Zpub/Upub/Vpub cosigners: their prefix gives the kind`);
    return multisigFromCosigners({ threshold: Number(list[1]), keys: list[2]!.slice(1).split('-'), sorted: !options.includes('keeporder') });
  }
  if (list || text.includes('-[')) return parseDerivationScheme(text);
  return undefined;
}

