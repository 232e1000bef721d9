// The one background loop: run, wait, run again. Runs never overlap (the next is scheduled when one ends), a
// failure is reported and the loop goes on, and stop() waits for a run in progress so the database can close.

/** Options of a {@link PeriodicTask}. */
export interface PeriodicTaskOptions {
  /** Pause between the end of one run and the start of the next. */
  everyMs: number;
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
      this.current = this.run()
        .then(
          () => undefined,
          (err: unknown) => this.opts.onError(err),
        )
        .finally(() => {
          this.current = null;
          if (!this.stopRequested) this.timer = setTimeout(loop, this.opts.everyMs);
        });
    };
    this.timer = setTimeout(loop, this.opts.firstDelayMs ?? 0);
  }

  /** Stops the loop and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }
}
