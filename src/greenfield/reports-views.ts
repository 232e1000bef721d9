// BTCPay's report views `Payments` and `Sales`, written from satgate's ledger rows: BTCPay's columns first, in its
// order and with its types (so a tool reading a BTCPay report finds them by name), then satgate's own after them.
// Every number is the ledger's exported text (the CSV's), so the API and the export never disagree.
import type { LedgerFigures, LedgerRow } from '../reports/ledger.ts';
import { addDecimals, roundDecimal } from '../money/decimal.ts';
import { BTC_DECIMALS, orderMinorUnits } from '../money/currencies.ts';

/** One column as BTCPay describes it. */
export interface ReportField {
  name: string;
  type: string;
}

/** A chart as BTCPay's reports page draws it: rows grouped, amounts summed. */
export interface ReportChart {
  name: string;
  groups: string[];
  totals: string[];
  hasGrandTotal: boolean;
  aggregates: string[];
  filters: string[];
}

/** BTCPay's "amount" cell: the exact value as text and the currency's divisibility. */
export interface FormattedAmount {
  v: string;
  d: number;
}

export type ReportCell = string | number | boolean | null | FormattedAmount;

/** What the Greenfield invoice table says of a payment reference: the invoice id and the shop's orderId. */
export interface InvoiceRef {
  invoiceId: string;
  orderId: string | null;
}

export interface ViewInput {
  rows: { row: LedgerRow; figures: LedgerFigures }[];
  invoiceOf: (row: LedgerRow) => InvoiceRef | undefined;
}

export interface ReportView {
  fields: ReportField[];
  charts: ReportChart[];
  data(input: ViewInput): ReportCell[][];
}

const chart = (c: Partial<ReportChart> & { name: string }): ReportChart => ({ groups: [], totals: [], hasGrandTotal: false, aggregates: [], filters: [], ...c });
const field = (name: string, type: string): ReportField => ({ name, type });
const divisibility = orderMinorUnits;
const amount = (v: string, currency: string): FormattedAmount | null => (v === '' || currency === '' ? null : { v, d: divisibility(currency) });
const orNull = (v: string) => (v === '' ? null : v);

/** The Greenfield method id of on-chain bitcoin, as invoices and server info name it. */
const ONCHAIN_METHOD = 'BTC-CHAIN';

const PAYMENTS_FIELDS: ReportField[] = [
  field('Date', 'datetime'),
  field('InvoiceId', 'invoice_id'),
  field('OrderId', 'string'),
  field('Category', 'string'),
  field('PaymentMethodId', 'string'),
  field('Confirmed', 'boolean'),
  field('Address', 'string'),
  field('PaymentCurrency', 'string'),
  field('PaymentAmount', 'amount'),
  field('PaymentMethodFee', 'decimal'),
  field('LightningAddress', 'string'),
  field('InvoiceCurrency', 'string'),
  field('InvoiceCurrencyAmount', 'amount'),
  field('Rate', 'amount'),
  // satgate's: the ledger row behind the payment, to reconcile with the CSV export row by row.
  field('EntryId', 'string'),
  field('Status', 'string'),
  field('ReversesEntryId', 'string'),
  field('TransactionId', 'string'),
  field('Vout', 'integer'),
  field('Late', 'boolean'),
  field('Paid', 'string'),
  field('RateSource', 'string'),
  field('RateEstimated', 'boolean'),
  field('LockedRate', 'amount'),
  field('InvoicedAmount', 'amount'),
  field('InvoicedCurrency', 'string'),
  field('ReferenceKind', 'string'),
  field('Reference', 'string'),
];

/**
 * One row per incoming payment output of the ledger (its receipts), reversing rows included with their negative
 * amounts: a payment a double spend or reorg took back stays visible, and the column sums are what stands. The fiat
 * columns are the value at the moment the payment was first seen, in the wallet's currency (not a rate of today).
 */
const payments: ReportView = {
  fields: PAYMENTS_FIELDS,
  charts: [
    chart({ name: "Aggregated by payment's currency", groups: ['PaymentCurrency', 'PaymentMethodId'], totals: ['PaymentCurrency'], aggregates: ['PaymentAmount'] }),
    chart({ name: "Aggregated by invoice's currency", groups: ['InvoiceCurrency'], totals: ['InvoiceCurrency'], aggregates: ['InvoiceCurrencyAmount'] }),
  ],
  data({ rows, invoiceOf }) {
    return rows
      .filter(({ row }) => row.kind === 'receipt')
      .map(({ row }) => {
        const invoice = invoiceOf(row);
        return [
          row.at,
          invoice?.invoiceId ?? orNull(row.reference),
          invoice?.orderId ?? null,
          'On-Chain',
          ONCHAIN_METHOD,
          row.status === 'confirmed',
          row.address,
          'BTC',
          amount(row.amount_btc, 'BTC'),
          0,
          null,
          row.currency,
          amount(row.fiat_value, row.currency),
          amount(row.rate, row.currency),
          row.entry_id,
          row.status,
          orNull(row.reverses_entry_id),
          row.txid,
          row.vout === '' ? null : Number(row.vout),
          row.late === 'true',
          orNull(row.paid),
          orNull(row.rate_source),
          row.rate_estimated === 'true',
          amount(row.locked_rate, row.invoiced_currency),
          amount(row.invoiced_amount, row.invoiced_currency),
          orNull(row.invoiced_currency),
          orNull(row.reference_kind),
          orNull(row.reference),
        ];
      });
  },
};

const SALES_FIELDS: ReportField[] = [
  field('Date', 'datetime'),
  field('InvoiceId', 'invoice_id'),
  field('State', 'string'),
  field('AppId', 'string'),
  field('Product', 'string'),
  field('Quantity', 'integer'),
  field('CurrencyAmount', 'amount'),
  field('Currency', 'string'),
  // satgate's: what was received for the order in the period, summed exactly from the ledger's rows.
  field('Paid', 'string'),
  field('Payments', 'integer'),
  field('PaidAmount', 'amount'),
  field('PaidCurrencyAmount', 'amount'),
  field('PaidCurrency', 'string'),
  field('ReferenceKind', 'string'),
  field('Reference', 'string'),
];

interface Sale {
  first: LedgerRow;
  last: LedgerRow | null;
  live: number;
  allConfirmed: boolean;
  btc: string;
  fiat: string | null;
}

/** BTCPay's invoice state of an order from what stands of its payments. */
function stateOf(s: Sale): string {
  if (s.live === 0 || s.last === null) return 'Invalid';
  if (s.last.paid === 'under') return 'New';
  return s.allConfirmed ? 'Settled' : 'Processing';
}

/**
 * One row per order (payment, form or address order) that received a payment in the period, dated by its first.
 * BTCPay's row is an invoice's product line; satgate's orders have no product lines, so the order is the product,
 * its kind the app, and the amount is what it invoiced (or, for an order without a price, what it received in fiat).
 */
const sales: ReportView = {
  fields: SALES_FIELDS,
  charts: [chart({ name: 'Summary', groups: ['AppId', 'Currency', 'State', 'Product'], aggregates: ['Quantity', 'CurrencyAmount'], totals: ['State'] })],
  data({ rows, invoiceOf }) {
    const byOrder = new Map<string, Sale>();
    for (const { row, figures } of rows) {
      if (row.kind !== 'receipt' || row.reference === '') continue;
      const key = `${row.reference_kind}:${row.reference}`;
      let s = byOrder.get(key);
      if (!s) byOrder.set(key, (s = { first: row, last: null, live: 0, allConfirmed: true, btc: '0', fiat: null }));
      // Signed sums of every row, reversals included: what stands of the order's payments.
      s.btc = addDecimals(s.btc, row.amount_btc);
      if (row.fiat_value !== '') s.fiat = addDecimals(s.fiat ?? '0', row.fiat_value);
      if (figures.live) {
        s.live += 1;
        s.last = row;
        if (row.status !== 'confirmed') s.allConfirmed = false;
      }
    }
    return [...byOrder.values()].map((s) => {
      const row = s.first;
      const invoice = invoiceOf(row);
      const fixedPrice = row.invoiced_amount !== '' && row.invoiced_currency !== '';
      const currency = fixedPrice ? row.invoiced_currency : row.currency;
      const fiat = s.fiat === null ? null : amount(roundDecimal(s.fiat, divisibility(row.currency)), row.currency);
      return [
        row.at,
        invoice?.invoiceId ?? row.reference,
        stateOf(s),
        row.reference_kind,
        invoice?.orderId ?? row.reference,
        1,
        fixedPrice ? amount(row.invoiced_amount, currency) : fiat,
        currency,
        orNull(s.last?.paid ?? ''),
        s.live,
        amount(roundDecimal(s.btc, BTC_DECIMALS), 'BTC'),
        fiat,
        row.currency,
        row.reference_kind,
        row.reference,
      ];
    });
  },
};

/** The views by BTCPay's names (case-sensitive, as BTCPay looks them up). */
export const REPORT_VIEWS: ReadonlyMap<string, ReportView> = new Map([
  ['Payments', payments],
  ['Sales', sales],
]);
