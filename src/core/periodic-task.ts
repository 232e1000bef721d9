// The one background loop: run, wait, run again. Runs never overlap (the next is scheduled when one ends), a
// failure is reported and the loop goes on, and stop() waits for a run in progress so the database can close.

/** Options of a {@link PeriodicTask}. */
export interface PeriodicTaskOptions {
  /** Pause between the end of one run and the start of the next (see `fromStart`). */
  everyMs: number;
  /**
   * Measure `everyMs` from the start of the previous run instead of its end, so runs begin every `everyMs`
   * whatever a run takes (back to back when a run takes longer). The chain watcher uses it: detection waits
   * for the next poll, and a poll's own duration added to every interval showed up in the latency's tail.
   */
  fromStart?: boolean;
  /** Delay before the first run after start() (default 0: at once). */
  firstDelayMs?: number;
  /** Called with whatever a run threw; the loop continues. */
  onError(err: unknown): void;
}

/** A periodic job with start/stop; `stopping` lets long runs end early once stop() was asked. */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private stopRequested = false;
  private loop: (() => void) | null = null;
  /** wake() was called during a run: the next run starts right after this one. */
  private wokenDuringRun = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly opts: PeriodicTaskOptions,
  ) {}

  /** True from stop() until the next start(). */
  get stopping(): boolean {
    return this.stopRequested;
  }

  /** Starts the loop. */
  start(): void {
    this.stopRequested = false;
    const loop = () => {
      if (this.stopRequested) return;
      this.timer = null;
      this.wokenDuringRun = false;
      const startedAt = Date.now();
      this.current = this.run()
        .then(
          () => undefined,
          (err: unknown) => this.opts.onError(err),
        )
        .finally(() => {
          this.current = null;
          if (this.stopRequested) return;
          const pause = this.opts.fromStart ? Math.max(0, this.opts.everyMs - (Date.now() - startedAt)) : this.opts.everyMs;
          this.timer = setTimeout(loop, this.wokenDuringRun ? 0 : pause);
        });
    };
    this.loop = loop;
    this.timer = setTimeout(loop, this.opts.firstDelayMs ?? 0);
  }

  /**
   * Runs now instead of after the pause (something happened that the next run should see: a node's push
   * hint, a committed event). A wake during a run makes one more run right after it, since that run may
   * have looked before the news. Ignored before start() and after stop().
   */
  wake(): void {
    if (this.stopRequested || !this.loop) return;
    if (this.current) {
      this.wokenDuringRun = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.loop, 0);
  }

  /** Stops the loop and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }
}
