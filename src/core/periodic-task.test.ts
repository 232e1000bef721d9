import { afterEach, describe, expect, it, vi } from 'vitest';
import { PeriodicTask } from './periodic-task.ts';

describe('periodic task', () => {
  it('runs again after each run, keeps going after a failure, and stop waits for the run in progress', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    let inFlight = 0;
    let overlapped = false;
    let release: () => void = () => {};
    const thirdRunStarted = new Promise<void>((resolve) => (release = resolve));
    const task = new PeriodicTask(
      async () => {
        runs += 1;
        inFlight += 1;
        if (inFlight > 1) overlapped = true;
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        if (runs === 3) release();
        if (runs === 2) throw new Error('second run fails');
      },
      { everyMs: 1, onError: (err) => errors.push(err) },
    );
    task.start();
    await thirdRunStarted;
    await task.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(after);
    expect(inFlight).toBe(0);
    expect(overlapped).toBe(false);
    expect(errors).toHaveLength(1);
    expect(task.stopping).toBe(true);
  });

  describe('with fromStart', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('starts runs every everyMs counted from the previous start, and back to back when a run takes longer', async () => {
      vi.useFakeTimers();
      const starts: number[] = [];
      let runMs = 300;
      const task = new PeriodicTask(
        async () => {
          starts.push(Date.now());
          await new Promise((r) => setTimeout(r, runMs));
        },
        { everyMs: 1000, fromStart: true, onError: () => {} },
      );
      const t0 = Date.now();
      task.start();
      await vi.advanceTimersByTimeAsync(2500);
      runMs = 1500; // longer than the interval: the next run starts as soon as this one ends
      await vi.advanceTimersByTimeAsync(4000);
      const stopped = task.stop();
      await vi.advanceTimersByTimeAsync(1500);
      await stopped;
      // 300 ms runs at 0, 1000, 2000, 3000; then 1500 ms runs back to back (the fake clock's setTimeout(0)
      // is 1 ms), where counting from the end would have started them 1000 ms after each end.
      expect(starts.map((s) => s - t0)).toEqual([0, 1000, 2000, 3000, 4501, 6002]);
    });
  });
});
