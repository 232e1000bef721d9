// Several light servers of one kind followed as one (SATGATE_*_ELECTRUM_URL / _ESPLORA_URL as a list): the
// light watcher asks this pool as it would ask one server, and everything it gets is still proven by the
// watcher (headers by proof of work, transactions by txid and Merkle proof). What the pool adds:
// - tips from every server; headers from a server at the best tip, in turn, so the chain with the most work
//   that our header chain verifies wins; a server behind it, or whose tip header is not in our verified
//   chain, is lagging and asked no histories until it catches up;
// - histories asked of one server per poll per script, in turn (each server carries about 1/n of the load),
//   a script's first look asked of `quorum` servers; the answer is the union of every current server's latest
//   answer, so one server that hides a payment cannot hide it, and a server that leaves out a transaction
//   our chain holds as mined is flagged "omitted a transaction" and asked less;
// - a server backing off after a refusal (-101, 429/5xx, dropped connection) is skipped while others can answer;
// - Esplora: whole blocks (block-scan.ts) asked of one server, in turn; bytes that fail the caller's check against
//   our verified header are that server's lie (counted, shown per server) and the next server is asked.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { BackendUnavailableError, type HistoryAnswer, type HistoryOptions, type LightBackend, type MerkleProof } from './light-backend.ts';
import type { BudgetStats } from './request-budget.ts';
import type { HistoryEntry } from './script-hash.ts';
import { PoolMember, type MemberHealth } from './pool-member.ts';

/** What the pool may read of the watcher's verified state. */
export interface PoolView {
  /** Our verified header hash at a height. */
  hashAt(height: number): string | undefined;
  tipHeight(): number | null;
  /** Whether our records hold the transaction as mined in our chain (it was proven). */
  isMined(txid: string): Promise<boolean>;
}

interface ScriptAnswers {
  turn: number;
  /** Each server's latest answer for the script (its status and list), in the order asked. */
  byMember: Map<PoolMember, HistoryAnswer & { at: number }>;
  /** Omissions already counted, so one missing transaction is counted once per server. */
  flagged: Set<string>;
}

export class ServerPool implements LightBackend {
  readonly kind: LightBackend['kind'];
  readonly members: PoolMember[];
  private readonly scripts = new Map<string, ScriptAnswers>();
  private view: PoolView | null = null;
  private best: number | null = null;
  private headerTurn = 0;
  private otherTurn = 0;
  private blockTurn = 0;
  /** Esplora: whole blocks from the servers. Absent when none has the question (Electrum): per-address polls then. */
  readonly rawBlock?: (hash: string, check?: (raw: Uint8Array) => boolean) => Promise<Uint8Array | null>;

  constructor(
    backends: LightBackend[],
    private readonly opts: { clock: Clock; log: Logger; quorum?: number },
  ) {
    if (backends.length === 0) throw new Error('a server pool needs at least one server');
    this.kind = backends[0]!.kind;
    this.members = backends.map((b) => new PoolMember(b, opts.clock));
    if (this.members.some((m) => m.backend.rawBlock)) this.rawBlock = (hash, check) => this.blockFromServers(hash, check);
  }

  get url(): string {
    return this.members.map((m) => m.url).join(',');
  }

  observe(view: PoolView): void {
    this.view = view;
  }

  servers(): MemberHealth[] {
    return this.members.map((m) => m.health());
  }

  private get quorum(): number {
    return Math.max(1, Math.min(this.opts.quorum ?? 2, this.members.length));
  }

  /** Every server not backing off is asked its tip; lagging is decided against the best one. */
  async tipHeight(): Promise<number> {
    const calm = this.members.filter((m) => !m.backingOff());
    const asked = calm.length > 0 ? calm : this.members;
    const results = await Promise.allSettled(asked.map((m) => m.backend.tipHeight()));
    let firstError: unknown = null;
    results.forEach((r, i) => {
      const m = asked[i]!;
      if (r.status === 'fulfilled') {
        m.tip = r.value;
        m.lastError = null;
      } else {
        m.lastError = r.reason instanceof Error ? r.reason.message : String(r.reason);
        firstError ??= r.reason;
      }
    });
    const tips = this.members.map((m) => m.tip).filter((t): t is number => t !== null);
    if (tips.length === 0 || results.every((r) => r.status === 'rejected')) throw firstError ?? new BackendUnavailableError('no light server answered');
    this.best = Math.max(...tips);
    await this.checkBranches();
    return this.best;
  }

  /** Behind the best tip: lagging. At or below our verified tip: its tip header must be ours (one request per new tip). */
  private async checkBranches(): Promise<void> {
    const ours = this.view?.tipHeight() ?? null;
    for (const m of this.members) {
      if (m.tip === null) continue;
      if (m.tip < this.best!) {
        m.lagReason = 'behind';
        continue;
      }
      if (m.lagReason === 'behind') m.lagReason = null;
      if (ours === null || m.tip > ours || !this.view || m.backingOff()) continue;
      const key = `${m.tip}:${this.view.hashAt(m.tip)}`;
      if (m.branchChecked === key) continue;
      try {
        const [raw] = await m.backend.headers(m.tip, 1);
        const same = raw !== undefined && headerHash(raw) === this.view.hashAt(m.tip);
        m.lagReason = same ? null : 'other-branch';
        if (same) m.branchChecked = key;
      } catch (err) {
        m.lastError = (err as Error).message;
      }
    }
  }

  /** From a server at the best tip, in turn (a lying one is left behind by the next one's heavier chain). */
  async headers(start: number, count: number): Promise<Uint8Array[]> {
    const atBest = this.members.filter((m) => m.tip !== null && m.tip >= start);
    const best = rotate(
      atBest.filter((m) => m.tip === this.best),
      this.headerTurn++,
    ).concat(atBest.filter((m) => m.tip !== this.best));
    // A server backing off is asked only when no other can answer.
    const ranked = [...best.filter((m) => !m.backingOff()), ...best.filter((m) => m.backingOff())];
    return this.firstAnswer(ranked, (m) => m.backend.headers(start, count));
  }

  /** One server per poll per script, in turn; the answer is the union of every current server's latest answer. */
  async history(script: Uint8Array, known?: string | null, opts: HistoryOptions = {}): Promise<HistoryAnswer | 'unchanged'> {
    const key = Buffer.from(script).toString('hex');
    let s = this.scripts.get(key);
    if (!s) {
      s = { turn: seedOf(key), byMember: new Map(), flagged: new Set() };
      this.scripts.set(key, s);
    }
    const order = this.historyOrder(s);
    const current = () => [...s.byMember.keys()].filter((x) => !x.lagging).length;
    let asked = 0;
    let lastError: unknown = null;
    for (const m of order) {
      // One server a poll; more only while fewer than `quorum` current servers have ever answered for the script.
      if (asked > 0 && current() >= this.quorum && !opts.everyServer) break;
      // Extra asks only of servers free to answer now: one backing off is not waited for.
      if (asked > 0 && ((s.byMember.has(m) && !opts.everyServer) || !m.usable())) continue;
      const prev = s.byMember.get(m);
      let r: Awaited<ReturnType<LightBackend['history']>>;
      try {
        r = await m.backend.history(script, prev ? prev.status : undefined, opts.hot ? { hot: true } : {});
      } catch (err) {
        // Any failure of one server (unreachable, refusing, an error answer) is that server's: the next is asked.
        m.lastError = err instanceof Error ? err.message : String(err);
        lastError = err;
        continue;
      }
      const answer = { ...(r === 'unchanged' ? prev! : r), at: this.opts.clock() };
      s.byMember.delete(m); // re-inserted last: the newest answer wins a disagreement on a height
      s.byMember.set(m, answer);
      await this.checkOmissions(m, s, answer);
      asked++;
    }
    if (asked === 0) throw lastError ?? new BackendUnavailableError('no light server could be asked');
    const entries = union(s, this.opts.clock() - STALE_ANSWER_MS);
    const status = statusOf(entries);
    if (known !== undefined && known === status) return 'unchanged';
    return { status, entries };
  }

  /** Rotation for one script: usable servers first (an omitter only every fourth turn), then the rest. */
  private historyOrder(s: ScriptAnswers): PoolMember[] {
    const turn = s.turn++;
    const rotated = rotate(this.members, turn);
    const usable = rotated.filter((m) => m.usable() && (!m.recentlyOmitted() || turn % 4 === 0));
    const rest = rotated.filter((m) => !usable.includes(m) && !m.lagging).sort((a, b) => (a.backend.budget().backingOffUntil ?? 0) - (b.backend.budget().backingOffUntil ?? 0));
    const order = [...usable, ...rest];
    return order.length > 0 ? order : rotated;
  }

  /**
   * Omissions, each counted once per server and transaction: a transaction another server listed that our chain
   * holds as mined at or below this server's tip, missing here; or, when this server's stated status is not the
   * hash of the list it sent (a status for a history it did not send), any transaction a current server listed
   * that its list leaves out, mined or not.
   */
  private async checkOmissions(m: PoolMember, s: ScriptAnswers, answer: HistoryAnswer): Promise<void> {
    if (!this.view || m.tip === null) return;
    const listed = new Set(answer.entries.map((e) => e.txid));
    const since = this.opts.clock() - STALE_ANSWER_MS;
    for (const [other, theirs] of s.byMember) {
      if (other === m) continue;
      for (const e of theirs.entries) {
        const mark = `${m.url} ${e.txid}`;
        if (listed.has(e.txid) || s.flagged.has(mark)) continue;
        const statusLie = answer.statusMismatch === true && !other.lagging && theirs.at >= since && e.height <= m.tip;
        if (!statusLie && (e.height <= 0 || e.height > m.tip || !(await this.view.isMined(e.txid)))) continue;
        s.flagged.add(mark);
        m.omitted(e.txid, statusLie ? 'status-mismatch' : 'missing-transaction');
        this.opts.log.warn(
          { source: m.url, txid: e.txid, height: e.height, statusMismatch: statusLie },
          statusLie
            ? 'light server stated a status for a history it did not send (a transaction other servers list is missing); it is asked less'
            : 'light server omitted a proven transaction from a history; it is asked less',
        );
      }
    }
  }

  /** After a rollback every answer is stale: histories are asked afresh. */
  forgetHistories(): void {
    this.scripts.clear();
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    // A server that does not produce a transaction another listed is asked no further: the next one is.
    for (const m of this.ranked()) {
      try {
        const raw = await m.backend.rawTransaction(txid);
        if (raw) return raw;
      } catch (err) {
        if (!(err instanceof BackendUnavailableError)) throw err;
      }
    }
    return null;
  }

  /**
   * The first server's bytes that pass `check` (the block our verified header names). A server whose bytes fail
   * is counted and the next is asked, so one lying server costs one download more, not the block. Null only when
   * every server asked answered 404 (block-scan.ts then decides the route is missing); when every answer failed
   * the check, the last one is returned for the caller to record the lie and ask again next poll.
   */
  private async blockFromServers(hash: string, check?: (raw: Uint8Array) => boolean): Promise<Uint8Array | null> {
    let refuted: Uint8Array | null = null;
    let lastError: unknown = null;
    for (const m of this.blockOrder()) {
      let raw: Uint8Array | null;
      try {
        raw = await m.backend.rawBlock!(hash);
      } catch (err) {
        if (!(err instanceof BackendUnavailableError)) throw err;
        m.lastError = err.message;
        lastError = err;
        continue;
      }
      if (raw === null) continue; // this server does not have it (behind, reorganised, or no such route): the next
      if (!check || check(raw)) return raw;
      refuted = raw;
      m.badBlock(hash);
      this.opts.log.warn({ source: m.url, block: hash }, 'light server sent a block that is not the one our verified header names; another server is asked');
    }
    if (refuted) return refuted;
    // Some server could not be asked: the block is asked again next poll rather than taken as not served.
    if (lastError) throw lastError;
    return null;
  }

  /**
   * Servers for a block: usable ones in turn (one that sent a bad block in the last hour after the others), then
   * lagging ones (a server behind may still have it), then those backing off (asked only when no other can answer).
   */
  private blockOrder(): PoolMember[] {
    const rotated = rotate(
      this.members.filter((m) => m.backend.rawBlock),
      this.blockTurn++,
    );
    const calm = rotated.filter((m) => !m.backingOff());
    const usable = calm.filter((m) => !m.lagging);
    return [
      ...usable.filter((m) => !m.recentlyBadBlock()),
      ...usable.filter((m) => m.recentlyBadBlock()),
      ...calm.filter((m) => m.lagging),
      ...rotated.filter((m) => m.backingOff()),
    ];
  }

  merkleProof(txid: string, height: number): Promise<MerkleProof> {
    return this.firstAnswer(this.ranked(), (m) => m.backend.merkleProof(txid, height));
  }

  /** To every server that is not lagging, so one that drops it does not keep it from the network. */
  async broadcast(raw: Uint8Array): Promise<string> {
    const targets = this.members.filter((m) => !m.lagging);
    const results = await Promise.allSettled((targets.length > 0 ? targets : this.members).map((m) => m.backend.broadcast(raw)));
    const ok = results.find((r) => r.status === 'fulfilled');
    if (ok) return (ok as PromiseFulfilledResult<string>).value;
    throw (results[0] as PromiseRejectedResult).reason;
  }

  estimateFee(blocks: number): Promise<bigint | null> {
    return this.firstAnswer(this.ranked(), (m) => m.backend.estimateFee(blocks));
  }

  onPush(listener: () => void): void {
    for (const m of this.members) m.backend.onPush(listener);
  }

  refreshTip(): void {
    for (const m of this.members) m.backend.refreshTip?.();
  }

  /** The sum over the servers (each has its own budget). */
  budget(): BudgetStats {
    const all = this.members.map((m) => m.backend.budget());
    const until = all.map((b) => b.backingOffUntil).filter((u): u is number => u !== null);
    return {
      requests: all.reduce((n, b) => n + b.requests, 0),
      refusals: all.reduce((n, b) => n + b.refusals, 0),
      requestsLastMinute: all.reduce((n, b) => n + b.requestsLastMinute, 0),
      // The pool as a whole backs off only when every server does.
      backingOffUntil: until.length === all.length ? Math.min(...until) : null,
    };
  }

  connected(): boolean {
    return this.members.some((m) => m.backend.connected());
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.backend.close()));
  }

  /** Servers for a single question: usable ones in turn, then the others. */
  private ranked(): PoolMember[] {
    const rotated = rotate(this.members, this.otherTurn++);
    return [...rotated.filter((m) => m.usable()), ...rotated.filter((m) => !m.usable())];
  }

  private async firstAnswer<T>(order: PoolMember[], ask: (m: PoolMember) => Promise<T>): Promise<T> {
    let lastError: unknown = null;
    for (const m of order) {
      try {
        return await ask(m);
      } catch (err) {
        if (!(err instanceof BackendUnavailableError)) throw err;
        m.lastError = err.message;
        lastError = err;
      }
    }
    throw lastError ?? new BackendUnavailableError('no light server could be asked');
  }
}

/** An answer older than this no longer counts in the merged history (10 minutes). */
const STALE_ANSWER_MS = 600_000;

function rotate<T>(items: T[], by: number): T[] {
  if (items.length === 0) return items;
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Where a script's rotation starts, so the scripts of one poll spread over the servers. */
function seedOf(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0);
}

function headerHash(raw: Uint8Array): string {
  const once = createHash('sha256').update(raw).digest();
  return Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex');
}

/**
 * Every current server's latest list merged: a mined claim beats an unconfirmed one, a newer answer an older.
 * Not current: a lagging server, and an answer older than `since` (a server unreachable for long must not keep a
 * replaced transaction waiting); the answer just given is always current.
 */
function union(s: ScriptAnswers, since: number): HistoryEntry[] {
  const byTxid = new Map<string, HistoryEntry>();
  const newest = [...s.byMember.values()].at(-1);
  for (const [m, answer] of s.byMember) {
    if (answer !== newest && (m.lagging || answer.at < since)) continue;
    for (const e of answer.entries) {
      const had = byTxid.get(e.txid);
      if (!had || e.height > 0 || had.height <= 0) byTxid.set(e.txid, e);
    }
  }
  const all = [...byTxid.values()];
  const mined = all.filter((e) => e.height > 0).sort((a, b) => a.height - b.height);
  return [...mined, ...all.filter((e) => e.height <= 0)];
}

/** A status for the merged list: unchanged exactly when the merged list is. */
function statusOf(entries: HistoryEntry[]): string | null {
  if (entries.length === 0) return null;
  return createHash('sha256').update(entries.map((e) => `${e.txid}:${e.height}`).join(';')).digest('hex');
}
