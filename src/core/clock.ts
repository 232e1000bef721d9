/** Current time in epoch milliseconds; injected so tests can move time. */
export type Clock = () => number;

/** The wall clock. */
export const systemClock: Clock = () => Date.now();

/** Formats epoch milliseconds as ISO 8601 UTC without milliseconds, e.g. 2026-11-21T12:00:00Z. */
export function isoUtc(ms: number): string {
  // toISOString always ends in ".sssZ" (also for six-digit years): cut it rather than run a regex per field.
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, -5)}Z`;
}
