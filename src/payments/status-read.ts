// The kept answers of the status read (operation 27), the path shops poll. The read itself, one hand-written
// statement per engine, is db/payment-status-read.ts.
import { PAYMENT_COLUMNS, type StatusRow } from '../db/payment-status-read.ts';

/** The values a status body is built from: the row's columns in {@link PAYMENT_COLUMNS} order, then the three aliases. */
export function statusValuesOf(row: StatusRow): unknown[] {
  const values: unknown[] = PAYMENT_COLUMNS.map((c) => row[c]);
  values.push(row.wallet_api_id, row.wallet_account_name, row.payment_address);
  return values;
}

/** Bodies kept; each is under 1 KiB with its values, so the bound is a few MiB at most. */
const MAX_BODIES = 4_096;

/**
 * The JSON text of recent status answers, each with the row values it was built from. A record is a pure
 * function of those values (and of the process's configuration), so a poll whose row reads the same values
 * gets the same text without building the record again: building and serialising it was about a third of a
 * status read's own work on SQLite. Every poll still reads the row, so a change is seen at once and a process
 * never serves another's stale answer.
 */
export class StatusBodyCache {
  private readonly bodies = new Map<string, { values: readonly unknown[]; body: string }>();

  constructor(private readonly max = MAX_BODIES) {}

  /** The body for `values` of payment `reference`: the kept one when every value is the same, else `build()`'s. */
  body(reference: string, values: readonly unknown[], build: () => string): string {
    const kept = this.bodies.get(reference);
    if (kept && sameValues(kept.values, values)) return kept.body;
    const body = build();
    // The least recently built goes first: a map iterates in insertion order, and a rebuilt body is re-inserted
    // (a hit moves nothing, to keep hits to a lookup and a comparison).
    if (kept) this.bodies.delete(reference);
    else if (this.bodies.size >= this.max) this.bodies.delete(this.bodies.keys().next().value!);
    this.bodies.set(reference, { values, body });
    return body;
  }

  /** Number of bodies kept. */
  get size(): number {
    return this.bodies.size;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
