// Operation 14's body (INTERFACE.md 4.1 and 2.7, DESIGN.md section 9 "payment form"): every field
// checked with its rule and strict types, every problem reported at once. Pure: no database, no network.
import { minorUnits, orderCurrencyProblem } from '../money/currencies.ts';
import { readAmountInput } from '../money/amount-input.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { isEmail, isHttpUrl } from '../wallets/field-rules.ts';

/** The three input types a field can have. */
export type UserFieldType = 'text' | 'textarea' | 'email';

/** A field object of 2.7; `value` is the prefilled value, then the payer's. */
export interface UserField {
  name: string;
  display_name: string;
  required: 0 | 1;
  type: UserFieldType;
  value: string;
}

/** A checked payment form request; `order_amount` is an exact decimal, `order_currency` uppercase. */
export interface FormRequest {
  api_id: string;
  order_id: string;
  order_amount: string;
  order_currency: string;
  user_id: string | null;
  user_email: string | null;
  payment_cancel_url: string;
  payment_complete_url: string;
  payment_update_url: string;
  site_name: string;
  user_fields: UserField[];
}

/** One bad field and what is wrong with it; `code` is the wallet API code it maps to. */
export interface FormProblem {
  field: string;
  message: string;
  code: '101' | '103' | '201' | '308';
}

/** At most this many payer fields (DESIGN.md section 9). */
export const MAX_USER_FIELDS = 20;
/** Longest value a payer may enter in one field. */
export const MAX_FIELD_VALUE = 4000;
const FIELD_NAME = /^[a-z0-9_]{1,64}$/;
const FIELD_TYPES: readonly UserFieldType[] = ['text', 'textarea', 'email'];
const KNOWN = new Set([
  'api_id',
  'order_id',
  'order_amount',
  'order_currency',
  'user_id',
  'user_email',
  'payment_cancel_url',
  'payment_complete_url',
  'payment_update_url',
  'site_name',
  'user_fields',
]);

/** Checks an operation 14 body; `hasRate` says whether an uppercase currency code has a current rate. */
export function checkFormRequest(
  body: JsonValue | undefined,
  hasRate: (code: string) => boolean,
): { ok: true; request: FormRequest } | { ok: false; problems: FormProblem[] } {
  if (!isJsonObject(body)) return { ok: false, problems: [{ field: 'request', message: 'must be a JSON object', code: '201' }] };
  const problems: FormProblem[] = [];
  const bad = (field: string, message: string, code: FormProblem['code'] = '201') => {
    problems.push({ field, message, code });
    return null;
  };
  for (const key of Object.keys(body)) if (!KNOWN.has(key)) bad(key, 'is not a field of POST /payment_form');

  const text = (field: string, required: boolean, max: number): string | null => {
    const v = body[field];
    if (v === undefined) return required ? bad(field, 'is required') : null;
    // null is not a string: an optional field with nothing in it is left out (strict, never coerced to absent).
    if (v === null) return bad(field, required ? 'is required' : 'must be a string (leave the field out when there is none)');
    if (typeof v !== 'string') return bad(field, 'must be a string');
    if (v === '') return required ? bad(field, 'must not be empty') : null;
    if (v.length > max) return bad(field, `must be at most ${max} characters`);
    return v;
  };
  const url = (field: string): string | null => {
    const v = text(field, true, 2048);
    if (v === null) return null;
    if (v !== v.trim() || !isHttpUrl(v)) return bad(field, 'must be an absolute http or https URL');
    return v;
  };

  const apiId = text('api_id', true, 100);
  const orderId = text('order_id', true, 256);
  const currencyRaw = text('order_currency', true, 3);
  let currency: string | null = null;
  if (currencyRaw !== null) {
    const upper = currencyRaw.toUpperCase();
    const notFiat = orderCurrencyProblem(upper, 'the payer is asked for the bitcoin amount worked out from order_amount at the exchange rate (a form takes no BTC amount)');
    if (notFiat !== null) bad('order_currency', notFiat, '101');
    else if (!hasRate(upper)) bad('order_currency', `${upper} has no current exchange rate on this service`, '103');
    else currency = upper;
  }
  const amount = orderAmount(body.order_amount, currency, bad);
  const userId = text('user_id', false, 256);
  const userEmail = text('user_email', false, 254);
  if (userEmail !== null && (userEmail !== userEmail.trim() || !isEmail(userEmail))) bad('user_email', 'must be an e-mail address', '308');
  const cancel = url('payment_cancel_url');
  const complete = url('payment_complete_url');
  const update = url('payment_update_url');
  const siteName = text('site_name', true, 200);
  const fields = userFields(body.user_fields, bad);

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      api_id: apiId!,
      order_id: orderId!,
      order_amount: amount!,
      order_currency: currency!,
      user_id: userId,
      user_email: userEmail,
      payment_cancel_url: cancel!,
      payment_complete_url: complete!,
      payment_update_url: update!,
      site_name: siteName!,
      user_fields: fields ?? [],
    },
  };
}

/** A JSON number or plain decimal string, parsed exactly: positive, at most the currency's minor units. */
function orderAmount(v: JsonValue | undefined, currency: string | null, bad: (f: string, m: string) => null): string | null {
  const field = 'order_amount';
  if (v === undefined || v === null) return bad(field, 'is required');
  const read = readAmountInput(v);
  if ('problem' in read) return bad(field, read.problem);
  const decimal = read.decimal;
  if (decimal.startsWith('-') || /^0(\.0*)?$/.test(decimal)) return bad(field, 'must be positive');
  const [, frac = ''] = decimal.split('.');
  const range = amountRangeProblem(decimal, currency ?? '');
  if (range !== null) return bad(field, range);
  if (currency !== null) {
    const units = minorUnits(currency);
    if (frac.length > units) return bad(field, `must have at most ${units} decimal place${units === 1 ? '' : 's'} for ${currency}`);
  }
  return decimal;
}

function userFields(v: JsonValue | undefined, bad: (f: string, m: string) => null): UserField[] | null {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return bad('user_fields', 'must be an array of field objects (leave it out when there are none)');
  if (v.length > MAX_USER_FIELDS) return bad('user_fields', `must have at most ${MAX_USER_FIELDS} fields`);
  const out: UserField[] = [];
  const names = new Set<string>();
  v.forEach((item, i) => {
    const at = `user_fields[${i}]`;
    if (!isJsonObject(item)) return bad(at, 'must be an object');
    for (const key of Object.keys(item)) {
      if (!['name', 'display_name', 'required', 'type', 'value'].includes(key)) bad(`${at}.${key}`, 'is not a field of a field object');
    }
    const name = item.name;
    if (typeof name !== 'string' || !FIELD_NAME.test(name)) bad(`${at}.name`, 'must be 1 to 64 lowercase letters, digits or underscores');
    else if (names.has(name)) bad(`${at}.name`, `repeats the name ${name}`);
    else names.add(name);
    const display = item.display_name;
    if (typeof display !== 'string' || display === '' || display.length > 200) bad(`${at}.display_name`, 'must be a string of 1 to 200 characters');
    const required = requiredFlag(item.required);
    if (required === null) bad(`${at}.required`, 'must be the integer 0 or 1');
    const type = item.type;
    if (typeof type !== 'string' || !FIELD_TYPES.includes(type as UserFieldType)) bad(`${at}.type`, 'must be "text", "textarea" or "email"');
    const value = item.value;
    if (value !== undefined && value !== null && (typeof value !== 'string' || value.length > MAX_FIELD_VALUE)) {
      bad(`${at}.value`, `must be a string of at most ${MAX_FIELD_VALUE} characters`);
    }
    out.push({
      name: String(name),
      display_name: String(display),
      required: required ?? 0,
      type: type as UserFieldType,
      value: typeof value === 'string' ? value : '',
    });
  });
  return out;
}

function requiredFlag(v: JsonValue | undefined): 0 | 1 | null {
  if (v === undefined) return 0;
  if (!(v instanceof JsonNumber)) return null;
  const d = v.toDecimal();
  return d === '0' ? 0 : d === '1' ? 1 : null;
}

/** Checks what the payer submitted against the form's fields; answers the fields with their values, or problems. */
export function checkSubmittedFields(
  fields: readonly UserField[],
  submitted: JsonValue | undefined,
  askEmail: boolean,
): { ok: true; fields: UserField[]; userEmail: string | null } | { ok: false; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  if (!isJsonObject(submitted)) return { ok: false, problems: [{ field: 'request', message: 'must be a JSON object', code: '201' }] };
  const values: JsonObject = isJsonObject(submitted.fields) ? submitted.fields : {};
  if (submitted.fields !== undefined && !isJsonObject(submitted.fields)) problems.push({ field: 'fields', message: 'must be an object', code: '201' });
  for (const key of Object.keys(values)) {
    if (!fields.some((f) => f.name === key)) problems.push({ field: `fields.${key}`, message: 'is not a field of this form', code: '201' });
  }
  const out = fields.map((f) => {
    const v = values[f.name];
    if (v !== undefined && typeof v !== 'string') {
      problems.push({ field: `fields.${f.name}`, message: 'must be a string', code: '201' });
      return f;
    }
    const value = v ?? '';
    if (value.length > MAX_FIELD_VALUE) problems.push({ field: `fields.${f.name}`, message: `must be at most ${MAX_FIELD_VALUE} characters`, code: '201' });
    else if (f.required === 1 && value.trim() === '') problems.push({ field: `fields.${f.name}`, message: `${f.display_name} is required`, code: '201' });
    else if (f.type === 'email' && value !== '' && !isEmail(value)) problems.push({ field: `fields.${f.name}`, message: 'must be an e-mail address', code: '308' });
    return { ...f, value };
  });
  let userEmail: string | null = null;
  if (askEmail) {
    const e = submitted.user_email;
    if (typeof e !== 'string' || e === '') problems.push({ field: 'user_email', message: 'your e-mail address is required', code: '201' });
    else if (e.length > 254 || !isEmail(e)) problems.push({ field: 'user_email', message: 'must be an e-mail address', code: '308' });
    else userEmail = e.trim();
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, fields: out, userEmail };
}
