// BTCPay's payment requests API over satgate's payment requests (src/requests): the body read with BTCPay's field
// names (swagger.template.payment-requests.json: amount, currency, title, description, expiryDate, email,
// allowCustomPaymentAmounts) and the answers written in its PaymentRequestData shape.
import { isJsonObject, JsonNumber, type JsonValue } from '../money/exact-json.ts';
import { checkRequestFields, type RequestFields, type RequestView } from '../payment-requests/payment-requests.ts';
import { GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';

/** Our field names → BTCPay's. */
const PATHS: Record<string, string> = {
  amount: 'amount',
  currency: 'currency',
  title: 'title',
  description: 'description',
  dueAt: 'expiryDate',
  payerEmail: 'email',
  allowPartial: 'allowCustomPaymentAmounts',
};

/** Fields BTCPay documents that satgate has no use for: accepted and ignored (styling and forms are BTCPay's). */
const IGNORED = new Set(['embeddedCSS', 'customCSSLink', 'formId', 'formResponse']);

/**
 * Reads a create/update body; `defaultCurrency` is the store's (BTCPay's rule for an empty currency). Throws a
 * 422 with every bad field at once (type errors here, then the domain's own checks under BTCPay's names).
 */
export function readPaymentRequestBody(body: JsonValue | undefined, defaultCurrency: string, hasRate: (code: string) => boolean): RequestFields {
  if (!isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'The body must be a JSON object' }]);
  const errors: GreenfieldFieldError[] = [];
  const bad = (path: string, message: string) => errors.push({ path, message });
  for (const key of Object.keys(body)) {
    if (!(Object.values(PATHS).includes(key) || IGNORED.has(key))) bad(key, 'is not a field of a payment request');
  }
  const text = (name: string): string | null => {
    const v = body[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') return bad(name, 'must be a string'), null;
    return v;
  };
  let amount: string | null = null;
  const a = body.amount;
  if (typeof a === 'string') amount = a;
  else if (a instanceof JsonNumber) {
    try {
      amount = a.toDecimal();
    } catch {
      bad('amount', 'must be a positive decimal number, like "12.50"');
    }
  } else if (a !== undefined && a !== null) bad('amount', 'must be a decimal string, like "12.50"');
  let dueAt: number | null = null;
  const e = body.expiryDate;
  if (e instanceof JsonNumber) {
    if (!/^\d{1,11}$/.test(e.text)) bad('expiryDate', 'must be a Unix time in seconds');
    else dueAt = Number(e.text) * 1000;
  } else if (e !== undefined && e !== null) bad('expiryDate', 'must be a Unix time in seconds');
  let allowPartial = false;
  const p = body.allowCustomPaymentAmounts;
  if (typeof p === 'boolean') allowPartial = p;
  else if (p !== undefined && p !== null) bad('allowCustomPaymentAmounts', 'must be true or false');
  const currency = text('currency');
  const fields: RequestFields = {
    amount,
    currency: currency === null || currency === '' ? defaultCurrency : currency,
    title: text('title'),
    description: text('description'),
    dueAt,
    payerEmail: text('email'),
    allowPartial,
  };
  // The domain's own checks too, for the fields not already refused above: every problem in one answer.
  const checked = checkRequestFields(fields, hasRate);
  if (!checked.ok) {
    const named = new Set(errors.map((e) => e.path));
    for (const problem of checked.errors) {
      const path = PATHS[problem.field] ?? problem.field;
      if (!named.has(path)) bad(path, problem.message);
    }
  }
  if (errors.length > 0) throw new GreenfieldValidationError(errors);
  return fields;
}

/** BTCPay's PaymentRequestData of a request. */
export function paymentRequestJson(view: RequestView): Record<string, unknown> {
  const { row } = view;
  return {
    id: row.request_id,
    storeId: view.storeId,
    status: view.status,
    createdTime: Math.floor(Number(row.created_at) / 1000),
    archived: row.archived_at !== null,
    amount: row.amount,
    currency: row.currency,
    title: row.title,
    description: row.description,
    email: row.payer_email,
    expiryDate: row.due_at === null ? null : Math.floor(Number(row.due_at) / 1000),
    allowCustomPaymentAmounts: Number(row.allow_partial) === 1,
    embeddedCSS: null,
    customCSSLink: null,
    formId: null,
    formResponse: null,
  };
}

/** JSON schemas of the answers, written from BTCPay's OpenAPI document (PaymentRequestData). */
export const PAYMENT_REQUEST_SCHEMAS = {
  PaymentRequestData: {
    type: 'object',
    required: ['id', 'storeId', 'status', 'createdTime', 'archived', 'amount', 'currency', 'title', 'allowCustomPaymentAmounts'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      storeId: { type: 'string' },
      status: { type: 'string', enum: ['Pending', 'Completed', 'Expired'] },
      createdTime: { type: 'integer' },
      archived: { type: 'boolean' },
      amount: { type: 'string', format: 'decimal' },
      currency: { type: 'string' },
      title: { type: 'string' },
      description: { type: ['string', 'null'] },
      email: { type: ['string', 'null'] },
      expiryDate: { type: ['integer', 'null'] },
      allowCustomPaymentAmounts: { type: 'boolean' },
      embeddedCSS: { type: ['string', 'null'] },
      customCSSLink: { type: ['string', 'null'] },
      formId: { type: ['string', 'null'] },
      formResponse: { type: ['object', 'null'] },
    },
  },
  PaymentRequestBaseData: {
    type: 'object',
    properties: {
      amount: { type: 'string', format: 'decimal' },
      title: { type: 'string' },
      currency: { type: ['string', 'null'] },
      email: { type: ['string', 'null'] },
      description: { type: ['string', 'null'] },
      expiryDate: { type: ['integer', 'null'] },
      allowCustomPaymentAmounts: { type: ['boolean', 'null'] },
    },
  },
} as const;
