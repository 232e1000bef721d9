/** Current time in epoch milliseconds; injected so tests can move time. */
export type Clock = () => number;

/** The wall clock. */
export const systemClock: Clock = () => Date.now();

/** Formats epoch milliseconds as ISO 8601 UTC without milliseconds, e.g. 2026-11-21T12:00:00Z. */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
