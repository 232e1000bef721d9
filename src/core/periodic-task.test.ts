import { describe, expect, it } from 'vitest';
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
});
