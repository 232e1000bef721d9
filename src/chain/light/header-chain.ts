// satgate's own copy of a network's header chain, from a built-in checkpoint: every header is checked
// for its link, its proof of work, and the target the consensus rules give it, and the chain with the
// most work wins. A light server can only show us headers; this decides which of them are the chain.
import { parseBlockHeader, type RawBlockHeader } from '../../bitcoin/raw-block.ts';
import type { Network } from '../../bitcoin/networks.ts';
import { headerRules, RETARGET_INTERVAL, TARGET_TIMESPAN, type HeaderRules } from './consensus-params.ts';
import { bitsFromTarget, meetsTarget, targetFromBits, workOfBits } from './pow.ts';

/** A verified header and the total work of the chain up to it (from the checkpoint). */
export interface ChainHeader extends RawBlockHeader {
  height: number;
  chainWork: bigint;
}

/** A server showed a header that breaks a rule; what it claimed changes nothing. */
export class HeaderLie extends Error {
  override name = 'HeaderLie';
}

/** What connecting a run of headers did. */
export type ConnectResult =
  | { kind: 'extended'; tip: ChainHeader }
  | { kind: 'unchanged' }
  /** A branch with more work replaced ours above `forkHeight`. */
  | { kind: 'reorg'; forkHeight: number; tip: ChainHeader }
  /** A valid branch with no more work than ours: we keep ours. */
  | { kind: 'less-work'; forkHeight: number };

export class HeaderChain {
  private readonly rules: HeaderRules;
  private headers: ChainHeader[] = [];

  constructor(readonly network: Network) {
    this.rules = headerRules(network);
  }

  /** Height of the first header kept (the checkpoint). */
  get baseHeight(): number {
    return this.rules.checkpoint.height;
  }

  /** The best verified header, or undefined before the checkpoint was fetched. */
  tip(): ChainHeader | undefined {
    return this.headers[this.headers.length - 1];
  }

  /** The verified header at a height on our best chain. */
  at(height: number): ChainHeader | undefined {
    return this.headers[height - this.baseHeight];
  }

  /** Forgets every header (they are loaded again from the database). */
  clear(): void {
    this.headers = [];
  }

  /** Our best chain's headers from `height` to the tip. */
  from(height: number): ChainHeader[] {
    return this.headers.slice(Math.max(0, height - this.baseHeight));
  }

  /** How many headers are kept (from the checkpoint). */
  get length(): number {
    return this.headers.length;
  }

  /**
   * Connects headers a server sent for heights `startHeight`, `startHeight + 1`, …. Each must link to the
   * one before (ours at `startHeight - 1`, or the checkpoint hash at the checkpoint height), meet its own
   * target, and carry the target the rules give it. A branch that forks from ours replaces it only with
   * more total work. Throws HeaderLie at the first broken rule; nothing is changed then.
   */
  connect(startHeight: number, raws: readonly Uint8Array[]): ConnectResult {
    if (raws.length === 0) return { kind: 'unchanged' };
    const base = this.baseHeight;
    if (startHeight < base) throw new HeaderLie(`headers below the checkpoint height ${base} were sent`);
    if (startHeight > base + this.headers.length) throw new HeaderLie(`headers from ${startHeight} do not connect to our tip`);
    // The branch: our headers below startHeight, then the new ones, checked in turn.
    const branch: ChainHeader[] = [];
    const lookup = (h: number): ChainHeader | undefined =>
      h >= startHeight ? branch[h - startHeight] : this.headers[h - base];
    for (let i = 0; i < raws.length; i++) {
      const raw = raws[i]!;
      if (raw.length !== 80) throw new HeaderLie(`header at ${startHeight + i} is ${raw.length} bytes, not 80`);
      const h = parseBlockHeader(raw);
      const height = startHeight + i;
      const prev = lookup(height - 1);
      if (height === base) {
        if (h.hash !== this.rules.checkpoint.hash) throw new HeaderLie(`header at the checkpoint height ${base} is not the checkpoint`);
      } else {
        if (!prev || h.prevHash !== prev.hash) throw new HeaderLie(`header ${h.hash} at ${height} does not link to its parent`);
        this.checkTarget(h, height, prev, lookup);
        if (h.time <= medianTimePast(height - 1, lookup)) throw new HeaderLie(`header ${h.hash} at ${height} is not after the median time past`);
      }
      if (!meetsTarget(h.hash, h.bits)) throw new HeaderLie(`header ${h.hash} at ${height} does not meet its proof-of-work target`);
      branch.push({ ...h, height, chainWork: (prev?.chainWork ?? 0n) + workOfBits(h.bits) });
    }
    // Where the branch leaves our chain.
    let fork = startHeight;
    while (fork - startHeight < branch.length && this.headers[fork - base]?.hash === branch[fork - startHeight]!.hash) fork++;
    const newTip = branch[branch.length - 1]!;
    if (fork - startHeight === branch.length) return { kind: 'unchanged' };
    const ourTip = this.tip();
    if (fork - base >= this.headers.length) {
      this.headers.push(...branch.slice(fork - startHeight));
      return { kind: 'extended', tip: newTip };
    }
    if (ourTip && newTip.chainWork <= ourTip.chainWork) return { kind: 'less-work', forkHeight: fork - 1 };
    this.headers = [...this.headers.slice(0, fork - base), ...branch.slice(fork - startHeight)];
    return { kind: 'reorg', forkHeight: fork - 1, tip: newTip };
  }

  /** The target rule: fixed on regtest, retargeted every 2016 blocks elsewhere (testnet with its 20-minute rule). */
  private checkTarget(h: RawBlockHeader, height: number, prev: ChainHeader, lookup: (h: number) => ChainHeader | undefined): void {
    const { rules } = this;
    const powLimit = targetFromBits(rules.powLimitBits);
    if (targetFromBits(h.bits) > powLimit || targetFromBits(h.bits) === 0n) throw new HeaderLie(`header ${h.hash} at ${height} has a target easier than the network allows`);
    if (!rules.retarget) {
      if (h.bits !== prev.bits) throw new HeaderLie(`header ${h.hash} at ${height} changes the fixed target`);
      return;
    }
    if (height % RETARGET_INTERVAL !== 0) {
      if (rules.minDifficultyBlocks) {
        if (h.time > prev.time + 20 * 60 && h.bits === rules.powLimitBits) return;
        // Otherwise the last target that was not the 20-minute exception, within this period.
        let p: ChainHeader | undefined = prev;
        while (p && p.height % RETARGET_INTERVAL !== 0 && p.bits === rules.powLimitBits) p = lookup(p.height - 1);
        if (p && h.bits !== p.bits) throw new HeaderLie(`header ${h.hash} at ${height} has the wrong target`);
        return;
      }
      if (h.bits !== prev.bits) throw new HeaderLie(`header ${h.hash} at ${height} changes the target between retargets`);
      return;
    }
    const first = lookup(height - RETARGET_INTERVAL);
    // Testnet4 (BIP94) retargets from the period's first target, so min-difficulty blocks cannot drag it down.
    const baseBits = rules.minDifficultyBlocks && first ? first.bits : prev.bits;
    const baseTarget = targetFromBits(baseBits);
    if (!first) {
      // The period started before our checkpoint: its start time is unknown, so only the 4x clamp is checked.
      const t = targetFromBits(h.bits);
      if (t > baseTarget * 4n || t < baseTarget / 4n) throw new HeaderLie(`header ${h.hash} at ${height} retargets beyond the 4x limit`);
      return;
    }
    let timespan = prev.time - first.time;
    timespan = Math.min(Math.max(timespan, TARGET_TIMESPAN / 4), TARGET_TIMESPAN * 4);
    let target = (baseTarget * BigInt(timespan)) / BigInt(TARGET_TIMESPAN);
    if (target > powLimit) target = powLimit;
    if (h.bits !== bitsFromTarget(target)) throw new HeaderLie(`header ${h.hash} at ${height} has the wrong retarget`);
  }
}

/** Median of the last 11 block times up to `height` (fewer near the checkpoint). */
function medianTimePast(height: number, lookup: (h: number) => ChainHeader | undefined): number {
  const times: number[] = [];
  for (let h = height; h > height - 11; h--) {
    const header = lookup(h);
    if (!header) break;
    times.push(header.time);
  }
  if (times.length === 0) return -1;
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
