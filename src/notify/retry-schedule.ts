/** Delays after each failed attempt (DESIGN.md section 7): 1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;
/** The delay once the listed ones are used up. */
export const LATER_RETRY_DELAY_MS = 43_200_000;
/** How long an event is retried before it is given up as failed. */
export const RETRY_WINDOW_MS = 3 * 86_400_000;

/** When to try again after `attempts` failed attempts, or null when the event is past its retry window. */
export function nextAttemptAt(attempts: number, createdAt: number, now: number): number | null {
  const delay = RETRY_DELAYS_MS[attempts - 1] ?? LATER_RETRY_DELAY_MS;
  const next = now + delay;
  return next > createdAt + RETRY_WINDOW_MS ? null : next;
}
