// POST /api/v1/stores/{storeId}/reports: BTCPay's report request (StoreReportRequest) answered from satgate's ledger,
// brought up to date first exactly as `satgate report ledger` does, so the figures are the CSV export's.
import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { JsonNumber, isJsonObject, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { syncLedger } from '../reports/ledger-sync.ts';
import { ledgerRows, type LedgerRow } from '../reports/ledger.ts';
import { GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';
import { REPORT_VIEWS, type InvoiceRef, type ReportCell, type ReportChart, type ReportField } from './reports-views.ts';

/** BTCPay's view when the request names none; satgate has no such view, so it is refused as BTCPay refuses an unknown one. */
const DEFAULT_VIEW = 'Invoices';
/** 9999-12-31T23:59:59Z, the last second a date-time can hold. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** A report request as read: the view's name and the period, epoch ms, both ends inclusive. */
export interface ReportRequest {
  viewName: string;
  from: number;
  to: number;
}

/** The answer, in BTCPay's StoreReportResponse shape (plus the view's name). */
export interface ReportAnswer {
  viewName: string;
  fields: ReportField[];
  data: ReportCell[][];
  from: string;
  to: string;
  charts: ReportChart[];
}

/** BTCPay's AddMonths(-1): the same day a month earlier, the month's last day when it has fewer. */
export function monthBefore(ms: number): number {
  const d = new Date(ms);
  const year = d.getUTCFullYear() - (d.getUTCMonth() === 0 ? 1 : 0);
  const month = (d.getUTCMonth() + 11) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

function unixSeconds(v: JsonValue | undefined, path: string, errors: GreenfieldFieldError[]): number | null {
  if (v === undefined || v === null) return null;
  if (v instanceof JsonNumber && /^\d{1,12}$/.test(v.toDecimal()) && Number(v.toDecimal()) <= MAX_UNIX_SECONDS) return Number(v.toDecimal()) * 1000;
  errors.push({ path, message: 'must be a whole number of Unix seconds (a JSON number)' });
  return null;
}

/**
 * Reads `{viewName, timePeriod: {from, to}}` strictly (wrong types are 422, never coerced). Absent parts take BTCPay's
 * defaults: the view Invoices, `to` now and `from` a month before `to`. An unknown view is BTCPay's 422 on ViewName.
 */
export function readReportRequest(body: JsonValue | undefined, now: number): ReportRequest {
  const errors: GreenfieldFieldError[] = [];
  if (body !== undefined && body !== null && !isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'the body must be a JSON object' }]);
  const b: JsonObject = isJsonObject(body) ? body : {};
  let viewName = DEFAULT_VIEW;
  if (typeof b.viewName === 'string') viewName = b.viewName;
  else if (b.viewName !== undefined && b.viewName !== null) errors.push({ path: 'viewName', message: 'must be a string' });
  let from: number | null = null;
  let to: number | null = null;
  const period = b.timePeriod;
  if (isJsonObject(period)) {
    from = unixSeconds(period.from, 'timePeriod.from', errors);
    to = unixSeconds(period.to, 'timePeriod.to', errors);
  } else if (period !== undefined && period !== null) {
    errors.push({ path: 'timePeriod', message: 'must be an object {from, to} in Unix seconds' });
  }
  if (errors.length > 0) throw new GreenfieldValidationError(errors);
  const end = to ?? now;
  const start = from ?? monthBefore(end);
  if (start > end) throw new GreenfieldValidationError([{ path: 'timePeriod.from', message: 'must not be after timePeriod.to' }]);
  if (!REPORT_VIEWS.has(viewName)) throw new GreenfieldValidationError([{ path: 'ViewName', message: "View doesn't exist" }]);
  return { viewName, from: start, to: end };
}

/** The store (wallet) a report is for. */
export interface ReportStore {
  id: bigint;
  api_id: string;
}

/** The reports of Greenfield stores. */
export class GreenfieldReports {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Reads a request body against the service's clock (the default period ends now). */
  read(body: JsonValue | undefined): ReportRequest {
    return readReportRequest(body, this.deps.clock());
  }

  /** Answers a report request (already read) for a store. */
  async report(store: ReportStore, request: ReportRequest): Promise<ReportAnswer> {
    const view = REPORT_VIEWS.get(request.viewName)!;
    await syncLedger(this.deps.db, store.id, this.deps.clock());
    // `to` is inclusive to its second (BTCPay's EndDate); the ledger's end is exclusive.
    const toExclusive = request.to % 1000 === 0 ? request.to + 1000 : request.to + 1;
    const rows = [];
    for await (const r of ledgerRows(this.deps.db, { walletId: store.id, apiId: store.api_id, from: request.from, to: toExclusive })) rows.push(r);
    const invoices = await this.invoicesOf(store.id, rows.map((r) => r.row));
    const data = view.data({ rows, invoiceOf: (row) => (row.reference_kind === 'payment' ? invoices.get(row.reference) : undefined) });
    return {
      viewName: request.viewName,
      fields: view.fields,
      data,
      from: new Date(request.from).toISOString(),
      to: new Date(request.to).toISOString(),
      charts: view.charts,
    };
  }

  /** The Greenfield invoice behind each payment reference of the rows (a payment made through payment API v1 has none). */
  private async invoicesOf(walletId: bigint, rows: LedgerRow[]): Promise<Map<string, InvoiceRef>> {
    const refs = [...new Set(rows.filter((r) => r.reference_kind === 'payment' && r.reference !== '').map((r) => r.reference))];
    const out = new Map<string, InvoiceRef>();
    for (let i = 0; i < refs.length; i += 500) {
      const found = await this.deps.db.kysely
        .selectFrom('greenfield_invoices as g')
        .innerJoin('payments as p', 'p.id', 'g.payment_id')
        .select(['g.invoice_id', 'g.order_id', 'p.reference'])
        .where('g.wallet_id', '=', walletId)
        .where('p.reference', 'in', refs.slice(i, i + 500))
        .execute();
      for (const f of found) out.set(f.reference, { invoiceId: f.invoice_id, orderId: f.order_id });
    }
    return out;
  }
}

const FormattedAmountSchema = Type.Object({ v: Type.String({ description: 'the exact value, a decimal as text' }), d: Type.Integer({ description: "the currency's divisibility" }) });

/** The route's shapes for the OpenAPI document (they document; the body is read by {@link readReportRequest}). */
export const REPORT_SCHEMAS = {
  StoreReportRequest: Type.Object({
    viewName: Type.Optional(Type.String({ description: 'Payments or Sales (BTCPay\'s default, Invoices, is not one of satgate\'s views)' })),
    timePeriod: Type.Optional(
      Type.Object({
        from: Type.Optional(Type.Integer({ description: 'start, Unix seconds, inclusive (default: a month before to)' })),
        to: Type.Optional(Type.Integer({ description: 'end, Unix seconds, inclusive to its second (default: now)' })),
      }),
    ),
  }),
  StoreReportResponse: Type.Object({
    viewName: Type.String(),
    fields: Type.Array(Type.Object({ name: Type.String(), type: Type.String({ description: 'datetime, invoice_id, string, boolean, integer, decimal or amount' }) })),
    data: Type.Array(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), FormattedAmountSchema])), { description: 'one array per row, a cell per field in order; an amount is {v, d}' }),
    from: Type.String({ description: 'ISO 8601' }),
    to: Type.String({ description: 'ISO 8601' }),
    charts: Type.Array(
      Type.Object({ name: Type.String(), groups: Type.Array(Type.String()), totals: Type.Array(Type.String()), hasGrandTotal: Type.Boolean(), aggregates: Type.Array(Type.String()), filters: Type.Array(Type.String()) }),
    ),
  }),
};
