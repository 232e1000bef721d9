/**
 * BTCPay Server / NBXplorer derivation-scheme strings, read as descriptors: `xpub…` (P2WPKH), `xpub…-[p2sh]`
 * (P2SH-P2WPKH), `xpub…-[legacy]` (P2PKH), `xpub…-[taproot]` (P2TR), `2-of-xpub1-xpub2-xpub3` (P2WSH multisig,
 * BIP67-sorted), with `-[p2sh]` (P2SH-P2WSH), `-[legacy]` (P2SH) and `-[keeporder]` (unsorted `multi`). Keys
 * derive `0/i` (receive) and `1/i` (change) directly below each given key, as NBXplorer does. Also SLIP-132
 * multisig cosigner sets (Ypub/Zpub/Upub/Vpub, as Electrum's multisig wallets show them).
 */
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { MultisigKind } from '../output-kinds.ts';
import { refuse } from './errors.ts';
import { XPUB_VERSIONS } from './key-expression.ts';
import { parseDescriptor, type Descriptor } from './parse.ts';

const OPTIONS = ['legacy', 'p2sh', 'keeporder', 'taproot'] as const;
type SchemeOption = (typeof OPTIONS)[number];

// NBXplorer's multisig form: "m-of-key1-key2…", the threshold one or two digits.
const MULTISIG = /^(\d{1,2})-of((?:-[A-Za-z0-9]+)+)$/;

const branchKey = (key: string): string => `${key}/<0;1>/*`;

/** Parses a derivation-scheme string into a descriptor; throws DescriptorError. */
export function parseDerivationScheme(input: unknown): Descriptor {
  if (typeof input !== 'string') return refuse('not-a-string', 'the derivation scheme must be a string');
  let text = input.trim();
  const options = new Set<SchemeOption>();
  for (let m = /-\[([A-Za-z0-9]+)\]$/.exec(text); m; m = /-\[([A-Za-z0-9]+)\]$/.exec(text)) {
    const option = m[1]!.toLowerCase();
    if (!(OPTIONS as readonly string[]).includes(option)) {
      return refuse('unsupported', `unsupported derivation-scheme option -[${m[1]}]; satgate takes -[p2sh], -[legacy], -[taproot] and -[keeporder]`);
    }
    options.add(option as SchemeOption);
    text = text.slice(0, m.index);
  }
  const has = (o: SchemeOption): boolean => options.has(o);
  if (has('legacy') && has('p2sh')) return refuse('unsupported', "the option 'legacy' is incompatible with 'p2sh'");
  if (has('taproot') && (has('p2sh') || has('legacy') || has('keeporder'))) {
    return refuse('unsupported', "the option 'taproot' is incompatible with 'p2sh', 'legacy' and 'keeporder'");
  }
  if (/[[\]]/.test(text)) return refuse('syntax', 'a derivation-scheme option is written -[name] at the end');
  const multi = MULTISIG.exec(text);
  if (multi) {
    if (has('taproot')) return refuse('unsupported', 'taproot multisig derivation schemes are not supported');
    const keys = multi[2]!.slice(1).split('-');
    const fragment = `${has('keeporder') ? 'multi' : 'sortedmulti'}(${Number(multi[1])},${keys.map(branchKey).join(',')})`;
    const descriptor = has('legacy') ? `sh(${fragment})` : has('p2sh') ? `sh(wsh(${fragment}))` : `wsh(${fragment})`;
    return parseDescriptor(descriptor);
  }
  if (!/^[A-Za-z0-9]+$/.test(text)) return refuse('syntax', 'a derivation scheme is an xpub, or m-of-xpub1-xpub2…, with -[option]s');
  const key = branchKey(text);
  const descriptor = has('legacy') ? `pkh(${key})` : has('p2sh') ? `sh(wpkh(${key}))` : has('taproot') ? `tr(${key})` : `wpkh(${key})`;
  return parseDescriptor(descriptor);
}

/** SLIP-132 multisig public versions, and the kind each stands for. */
const SLIP132_MULTISIG: Record<number, { kind: MultisigKind; testnet: boolean }> = {
  0x0295b43f: { kind: 'p2sh-p2wsh-multisig', testnet: false }, // Ypub
  0x02aa7ed3: { kind: 'p2wsh-multisig', testnet: false }, // Zpub
  0x024289ef: { kind: 'p2sh-p2wsh-multisig', testnet: true }, // Upub
  0x02575483: { kind: 'p2wsh-multisig', testnet: true }, // Vpub
};

function decode(text: string): Uint8Array {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return refuse('bad-key', 'a cosigner key is not base58 text');
  }
  const payload = raw.subarray(0, raw.length - 4);
  const check = sha256(sha256(payload));
  if (raw.length !== 82 || !check.subarray(0, 4).every((b, i) => b === raw[78 + i])) return refuse('bad-key', 'a cosigner key has a bad checksum or length');
  return payload;
}

/**
 * A multisig wallet from its cosigners' keys and threshold: SLIP-132 Ypub/Zpub/Upub/Vpub (the prefix gives the
 * kind) or xpub/tpub with `kind` given. Keys derive `0/i` and `1/i`; BIP67 sorting unless `sorted` is false.
 */
export function multisigFromCosigners(args: { threshold: number; keys: readonly string[]; kind?: MultisigKind; sorted?: boolean }): Descriptor {
  const kinds = new Set<MultisigKind>();
  const keys = args.keys.map((k) => {
    const payload = decode(k.trim());
    const view = new DataView(payload.buffer, payload.byteOffset);
    const slip = SLIP132_MULTISIG[view.getUint32(0, false)];
    if (!slip) return k.trim();
    kinds.add(slip.kind);
    const converted = Uint8Array.from(payload);
    new DataView(converted.buffer).setUint32(0, slip.testnet ? XPUB_VERSIONS.test.public : XPUB_VERSIONS.mainnet.public, false);
    return base58.encode(Uint8Array.of(...converted, ...sha256(sha256(converted)).subarray(0, 4)));
  });
  if (args.kind) kinds.add(args.kind);
  if (kinds.size > 1) return refuse('unsupported', 'the cosigner keys are of different kinds (Ypub/Upub are P2SH-P2WSH, Zpub/Vpub P2WSH)');
  const kind = [...kinds][0] ?? 'p2wsh-multisig';
  if (!Number.isInteger(args.threshold)) return refuse('threshold', 'the threshold must be a whole number');
  const fragment = `${args.sorted === false ? 'multi' : 'sortedmulti'}(${args.threshold},${keys.map(branchKey).join(',')})`;
  const descriptor = kind === 'p2sh-multisig' ? `sh(${fragment})` : kind === 'p2sh-p2wsh-multisig' ? `sh(wsh(${fragment}))` : `wsh(${fragment})`;
  return parseDescriptor(descriptor);
}
