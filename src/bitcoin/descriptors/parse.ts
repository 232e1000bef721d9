/**
 * Output descriptors (BIP380-383, 386, 389) in the shapes a satgate wallet can be: `pkh(KEY)`, `wpkh(KEY)`,
 * `sh(wpkh(KEY))`, `tr(KEY)` (BIP86 key path, no script tree), and `multi`/`sortedmulti` inside `wsh()`,
 * `sh(wsh())` or `sh()`. Everything else is refused with a DescriptorError naming the part.
 */
import { OUTPUT_KINDS, type MultisigPolicy, type OutputKind } from '../output-kinds.ts';
import { descriptorChecksum, validDescriptorCharacters } from './checksum.ts';
import { refuse } from './errors.ts';
import { formatKeyExpression, multipathLength, parseKeyExpression, type KeyExpression } from './key-expression.ts';

/** A parsed descriptor. */
export interface Descriptor {
  readonly kind: OutputKind;
  /** The keys in the order written (a `sortedmulti` sorts each index's keys, BIP67). */
  readonly keys: readonly KeyExpression[];
  /** Multisig only. */
  readonly policy?: MultisigPolicy;
  /** True/false when extended keys fix the network family; undefined for hex keys only. */
  readonly testnet?: boolean;
  /** Branches of the BIP389 multipath steps (1 when there are none). */
  readonly multipath: number;
  /** True when its keys are ranged (`…/*`). */
  readonly ranged: boolean;
  /** Canonical text without checksum (`h` for hardened steps). */
  readonly body: string;
  /** Canonical text with its checksum. */
  readonly text: string;
}

const MAX_LENGTH = 10_000;
const SUPPORTED = 'satgate takes pkh(KEY), wpkh(KEY), sh(wpkh(KEY)), tr(KEY), and multi(…) or sortedmulti(…) inside wsh(), sh(wsh()) or sh()';

interface Call {
  readonly name: string;
  readonly args: string[];
}

const short = (text: string): string => (text.length > 40 ? `${text.slice(0, 30)}…` : text);

/** `name(a,b,…)` split at its top-level commas; undefined for text that is not a call. */
function asCall(text: string): Call | undefined {
  const m = /^([a-z_]+)\(/.exec(text);
  if (!m) return undefined;
  if (!text.endsWith(')')) return refuse('syntax', `${m[1]}( in "${short(text)}" is not closed where the descriptor ends`);
  const inner = text.slice(m[0].length, -1);
  const args: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') {
      depth--;
      if (depth < 0) return refuse('syntax', `unbalanced ) in ${m[1]}(…)`);
    } else if (c === ',' && depth === 0) {
      args.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return refuse('syntax', `unbalanced ( in ${m[1]}(…)`);
  args.push(inner.slice(start));
  return { name: m[1]!, args };
}

function oneArg(call: Call): string {
  if (call.args.length !== 1 || call.args[0] === '') return refuse('syntax', `${call.name}() takes exactly one argument`);
  return call.args[0]!;
}

function keyArg(call: Call, xonly = false): KeyExpression {
  const arg = oneArg(call);
  const inner = asCall(arg);
  if (inner) return refuse('syntax', `${call.name}() takes a key, not the script ${inner.name}()`);
  return parseKeyExpression(arg, xonly);
}

function unsupported(call: Call, where: string): never {
  const what =
    call.name === 'multi' || call.name === 'sortedmulti'
      ? `bare ${call.name}() (multisig must be inside wsh(), sh(wsh()) or sh())`
      : call.name === 'tr'
        ? 'tr() inside another script'
        : `${call.name}()${where}`;
  return refuse('unsupported', `unsupported fragment ${what}; ${SUPPORTED}`);
}

interface Parsed {
  kind: OutputKind;
  keys: KeyExpression[];
  policy?: MultisigPolicy;
}

function multisig(call: Call, kind: OutputKind): Parsed {
  const [k, ...keyTexts] = call.args;
  if (k === undefined || !/^\d+$/.test(k)) return refuse('threshold', `${call.name}(): the threshold "${short(k ?? '')}" is not a whole number`);
  if (keyTexts.length === 0) return refuse('syntax', `${call.name}() has no keys`);
  const threshold = Number(k);
  const row = OUTPUT_KINDS[kind];
  if (keyTexts.length > row.maxKeys) {
    return refuse('too-many-keys', `${call.name}() has ${keyTexts.length} keys; ${kind} multisig holds at most ${row.maxKeys}`);
  }
  const keys = keyTexts.map((t) => {
    if (asCall(t)) return refuse('syntax', `${call.name}() takes keys, not scripts`);
    return parseKeyExpression(t);
  });
  if (threshold < 1 || threshold > keys.length) {
    return refuse('threshold', `${call.name}(): threshold ${threshold} must be from 1 to the number of keys (${keys.length})`);
  }
  const seen = new Set<string>();
  for (const key of keys) {
    const id = Buffer.from(key.xpub ? key.xpub.hd.publicKey! : key.publicKey!).toString('hex');
    if (seen.has(id)) return refuse('duplicate-key', `${call.name}(): the same cosigner key appears twice`);
    seen.add(id);
  }
  return { kind, keys, policy: { threshold, sorted: call.name === 'sortedmulti' } };
}

function isMulti(call: Call | undefined): boolean {
  return call?.name === 'multi' || call?.name === 'sortedmulti';
}

function parseTop(text: string): Parsed {
  const top = asCall(text);
  if (!top) return refuse('syntax', `"${short(text)}" is not a script; ${SUPPORTED}`);
  switch (top.name) {
    case 'pkh':
      return { kind: 'p2pkh', keys: [keyArg(top)] };
    case 'wpkh':
      return { kind: 'p2wpkh', keys: [keyArg(top)] };
    case 'tr':
      if (top.args.length > 1) return refuse('unsupported', 'unsupported fragment tr() with a script tree; satgate takes tr(KEY), the BIP86 key path only');
      return { kind: 'p2tr', keys: [keyArg(top, true)] };
    case 'wsh': {
      const inner = asCall(oneArg(top));
      if (isMulti(inner)) return multisig(inner!, 'p2wsh-multisig');
      if (!inner) return refuse('syntax', 'wsh() takes a script, not a key');
      return unsupported(inner, ' inside wsh()');
    }
    case 'sh': {
      const inner = asCall(oneArg(top));
      if (!inner) return refuse('syntax', 'sh() takes a script, not a key');
      if (inner.name === 'wpkh') return { kind: 'p2sh-p2wpkh', keys: [keyArg(inner)] };
      if (isMulti(inner)) return multisig(inner, 'p2sh-multisig');
      if (inner.name === 'wsh') {
        const innermost = asCall(oneArg(inner));
        if (isMulti(innermost)) return multisig(innermost!, 'p2sh-p2wsh-multisig');
        if (!innermost) return refuse('syntax', 'wsh() takes a script, not a key');
        return unsupported(innermost, ' inside sh(wsh())');
      }
      return unsupported(inner, ' inside sh()');
    }
    default:
      return unsupported(top, '');
  }
}

/** Splits off and checks a BIP380 checksum: required to match when given, computed when absent. */
export function splitChecksum(input: string): { body: string; checksum: string } {
  const hash = input.indexOf('#');
  const body = hash < 0 ? input : input.slice(0, hash);
  if (!validDescriptorCharacters(body)) return refuse('bad-character', 'the descriptor has a character descriptors do not use');
  const expected = descriptorChecksum(body)!;
  if (hash < 0) return { body, checksum: expected };
  const given = input.slice(hash + 1);
  if (given.length !== 8) return refuse('bad-checksum', `the checksum after # must be 8 characters, not ${given.length}`);
  if (given !== expected) return refuse('bad-checksum', 'the descriptor checksum does not match (a character is mistyped, or the descriptor was edited)');
  return { body, checksum: given };
}

/** Parses a descriptor; throws DescriptorError. */
export function parseDescriptor(input: unknown): Descriptor {
  if (typeof input !== 'string') return refuse('not-a-string', 'the descriptor must be a string');
  const trimmed = input.trim();
  if (trimmed === '') return refuse('syntax', 'the descriptor is empty');
  if (trimmed.length > MAX_LENGTH) return refuse('syntax', 'the descriptor is too long');
  const { body: given } = splitChecksum(trimmed);
  const { kind, keys, policy } = parseTop(given);
  const networks = new Set(keys.filter((k) => k.xpub).map((k) => k.xpub!.testnet));
  if (networks.size > 1) return refuse('mixed-networks', 'the descriptor mixes mainnet (xpub) and test network (tpub) keys');
  // BIP389: keys with a multipath step must agree on its length; keys without one serve every branch.
  const multipaths = [...new Set(keys.map(multipathLength))].filter((n) => n > 1);
  if (multipaths.length > 1) return refuse('multipath', 'the multipath steps of the descriptor have different numbers of branches');
  const ranged = new Set(keys.map((k) => k.wildcard));
  if (ranged.size > 1) return refuse('not-ranged', 'either every key of the descriptor ends in /* or none does');
  const row = OUTPUT_KINDS[kind];
  const keyTexts = keys.map(formatKeyExpression);
  const inner = policy ? `${policy.sorted ? 'sortedmulti' : 'multi'}(${policy.threshold},${keyTexts.join(',')})` : keyTexts[0]!;
  const body = row.descriptor(inner);
  const checksum = descriptorChecksum(body)!;
  return {
    kind,
    keys,
    ...(policy ? { policy } : {}),
    ...(networks.size === 1 ? { testnet: [...networks][0]! } : {}),
    multipath: multipaths[0] ?? 1,
    ranged: keys[0]!.wildcard,
    body,
    text: `${body}#${checksum}`,
  };
}
