// The singleton role (DESIGN.md section 3): on PostgreSQL every `satgate start` process with SATGATE_ROLE
// all or worker competes for one lease row; its holder runs the work that must run exactly once (chain
// watchers, rate refresher, payment sweeper) under a fence, so each of its writes checks the lease in its
// own transaction. On SQLite there is one process: it simply runs that work.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { oneServerOnly, type Db } from '../db/database.ts';
import type { ProcessRole } from '../config/config.ts';
import { LeaseStore, type HeldLease } from '../db/lease-store.ts';
import { runFenced, type Fence } from '../db/fencing.ts';
import { PeriodicTask } from '../core/periodic-task.ts';
import type { HealthReport } from '../http/health.ts';

/** The lease's name: one singleton per database. */
export const SINGLETON_LEASE = 'singleton';

/** The work only one process may run, and what followers do instead. */
export interface SingletonWork {
  /** Starts the singleton work (called inside the fence, so what it schedules stays fenced). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Followers keep their in-memory views (exchange rates) current from the database. */
  follow(): Promise<void>;
}

/** What this process knows about the role, for /health and /metrics. */
export interface SingletonStatus {
  role: ProcessRole;
  process: string;
  /** 'holder', 'follower', 'lost' (held it, lost it, not yet holding again) or 'single' (SQLite). */
  state: 'holder' | 'follower' | 'lost' | 'single';
  holder: string | null;
  /** When the current holder took the lease (epoch ms, database clock). */
  since: number | null;
  /** Time since the holder last renewed the lease. */
  leaseAgeMs: number | null;
  expiresInMs: number | null;
  leaseMs: number;
  lostAt: number | null;
  fencedWritesRefused: number;
  takeovers: number;
}

/** Elects, runs and fences the singleton work of this process. */
export class SingletonRole {
  readonly processId = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  private readonly leases: LeaseStore;
  private readonly loop: PeriodicTask;
  private readonly follower: PeriodicTask;
  private held: HeldLease | null = null;
  private lastRenewOkAt = 0;
  private lostAt: number | null = null;
  private refused = 0;
  private takeovers = 0;
  private working = false;
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: { db: Db; role: ProcessRole; leaseMs: number; log: Logger; work: SingletonWork; followEveryMs?: number },
  ) {
    this.leases = new LeaseStore(opts.db);
    // Renewing three times per period leaves two chances to fail before the lease runs out.
    const every = Math.max(50, Math.floor(opts.leaseMs / 3));
    this.loop = new PeriodicTask(() => this.tick(), {
      everyMs: every,
      firstDelayMs: every,
      onError: (err) => opts.log.warn({ err: String(err) }, 'singleton lease round failed; will retry'),
    });
    this.follower = new PeriodicTask(() => opts.work.follow(), {
      everyMs: opts.followEveryMs ?? Math.min(5_000, opts.leaseMs),
      onError: (err) => opts.log.warn({ err: String(err) }, 'could not follow the stored exchange rates; will retry'),
    });
  }

  private get single(): boolean {
    return oneServerOnly(this.opts.db);
  }

  /** Starts competing (or, on SQLite, the work itself). */
  async start(): Promise<void> {
    if (this.single) {
      this.working = true;
      await this.opts.work.start();
      return;
    }
    await this.opts.work.follow().catch(() => {});
    this.follower.start();
    if (this.opts.role === 'api') return;
    // The first round runs now, so a lone process starts like on SQLite: its work running when start() returns.
    await this.tick().catch((err: unknown) => this.opts.log.warn({ err: String(err) }, 'singleton lease round failed; will retry'));
    this.loop.start();
    await this.transition;
  }

  /** Stops the work and gives the lease up so a follower takes over at once. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.follower.stop();
    await this.transition;
    if (this.working) await this.opts.work.stop();
    this.working = false;
    const held = this.held;
    this.held = null;
    if (held && !this.single) await this.leases.release(SINGLETON_LEASE, this.processId, held.token).catch(() => {});
  }

  private async tick(): Promise<void> {
    const { leaseMs, log } = this.opts;
    if (this.held) {
      let renewed: HeldLease | null;
      try {
        renewed = await this.leases.renew(SINGLETON_LEASE, this.processId, this.held.token, leaseMs);
      } catch (err) {
        // The database is unreachable: once a whole period passed without renewal the lease may be gone.
        if (Date.now() - this.lastRenewOkAt >= leaseMs) this.lose('lease not renewed for a whole period');
        throw err;
      }
      if (renewed) {
        this.held = renewed;
        this.lastRenewOkAt = Date.now();
      } else {
        this.lose('lease expired and was taken over, or released');
      }
      return;
    }
    await this.transition;
    const got = await this.leases.tryAcquire(SINGLETON_LEASE, this.processId, leaseMs);
    if (!got) return;
    this.held = got;
    this.lastRenewOkAt = Date.now();
    this.lostAt = null;
    this.takeovers++;
    log.info({ process: this.processId, token: String(got.token) }, 'took the singleton lease: running chain watchers, rate refresher and sweepers here');
    const fence: Fence = {
      lease: SINGLETON_LEASE,
      holder: this.processId,
      token: got.token,
      idleLimitMs: leaseMs,
      onRefused: () => {
        this.refused++;
        this.lose('a fenced write found the lease gone');
      },
    };
    this.working = true;
    // Not awaited: starting (a first rate refresh from slow providers) must not hold up the renewals.
    this.transition = runFenced(fence, () => this.opts.work.start()).catch((err: unknown) => {
      log.error({ err: String(err) }, 'singleton work failed to start');
    });
  }

  /** Stops the work after the lease was lost; the loop then competes again as a follower. */
  private lose(why: string): void {
    if (!this.held) return;
    this.held = null;
    this.lostAt = Date.now();
    this.opts.log.warn({ process: this.processId, why }, 'lost the singleton lease: stopping chain watchers, rate refresher and sweepers');
    // Not awaited: the caller may be a fenced transaction inside the very work being stopped.
    const previous = this.transition;
    this.transition = previous.then(async () => {
      if (!this.working) return;
      this.working = false;
      await this.opts.work.stop();
    });
    this.transition.catch(() => {});
  }

  /** This process's view, with the lease row read now. */
  async status(): Promise<SingletonStatus> {
    const base = {
      role: this.opts.role,
      process: this.processId,
      leaseMs: this.opts.leaseMs,
      lostAt: this.lostAt,
      fencedWritesRefused: this.refused,
      takeovers: this.takeovers,
    };
    if (this.single) return { ...base, state: 'single', holder: this.processId, since: null, leaseAgeMs: null, expiresInMs: null };
    const row = await this.leases.read(SINGLETON_LEASE);
    const valid = row !== null && row.expiresAt > row.now;
    const mine = valid && this.held !== null && row.holder === this.processId && row.token === this.held.token;
    return {
      ...base,
      // Still believing it holds a lease the row gives to another (paused, not yet noticed) is lost too.
      state: mine ? 'holder' : this.lostAt !== null || this.held !== null ? 'lost' : 'follower',
      holder: valid ? row.holder : null,
      since: valid ? row.acquiredAt : null,
      leaseAgeMs: valid ? row.now - row.renewedAt : null,
      expiresInMs: valid ? row.expiresAt - row.now : null,
    };
  }

  /** GET /health's `singleton` component: unhealthy only when nobody holds the lease. */
  async health(): Promise<HealthReport> {
    const s = await this.status();
    return {
      ok: s.holder !== null,
      role: s.role,
      process: s.process,
      state: s.state,
      holder: s.holder,
      since: s.since === null ? null : new Date(s.since).toISOString(),
      lease_age_ms: s.leaseAgeMs,
      lease_expires_in_ms: s.expiresInMs,
      lease_ms: s.leaseMs,
      lost_at: s.lostAt === null ? null : new Date(s.lostAt).toISOString(),
      fenced_writes_refused: s.fencedWritesRefused,
    };
  }
}
