// BTCPay's apps API for point of sale over satgate's POS apps (src/pos): the body read with BTCPay's field names
// (swagger.template.apps.json, CreatePointOfSaleAppRequest, and the `items` array BTCPay 2 writes, or the older
// `template` holding the same array as JSON text) and the answers in its PointOfSaleAppData / BasicAppData shapes.
// BTCPay's views map onto ours: "Light" (keypad) is our keypad-only mode, "Static" and "Cart" our item cart;
// "Print" (a printed price list) has no counter and is refused. enableTips turns the tip presets and the typed tip on.
import { isJsonObject, JsonNumber, parseExactJson, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { isoUtc } from '../core/clock.ts';
import type { AppInput, ItemInput } from '../pos/pos-fields.ts';
import { checkApp } from '../pos/pos-fields.ts';
import { tipPresetsOf, type PosView } from '../pos/pos-apps.ts';
import type { PricedCart } from '../pos/pos-cart.ts';
import { GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';

/** BTCPay's tip presets when enableTips is on and none are given. */
export const BTCPAY_DEFAULT_TIPS = [15, 18, 20];

/** Fields BTCPay documents that satgate has no use for: accepted and ignored (styling, forms, redirects). */
const IGNORED = new Set([
  'showItems', 'showDiscount', 'showSearch', 'showCategories', 'tipText', 'fixedAmountPayButtonText', 'customAmountPayButtonText',
  'customCSSLink', 'embeddedCSS', 'notificationUrl', 'redirectUrl', 'redirectAutomatically', 'requiresRefundEmail', 'checkoutType',
  'checkoutFormId', 'formId', 'htmlMetaTags', 'archived', 'discountPercentage',
]);
const KNOWN = new Set(['appName', 'title', 'description', 'template', 'items', 'defaultView', 'currency', 'showCustomAmount', 'enableTips', 'customTipPercentages', 'htmlLang']);
const ITEM_IGNORED = new Set(['categories', 'buyButtonText', 'disabled']);
const ITEM_KNOWN = new Set(['id', 'title', 'description', 'image', 'price', 'priceType', 'inventory']);

/** Our field names → BTCPay's, for the domain's own refusals. */
function btcpayPath(field: string): string {
  return field
    .replace(/^keypadOnly$/, 'defaultView')
    .replace(/^tipPresets$/, 'customTipPercentages')
    .replace(/^defaultLanguage$/, 'htmlLang')
    .replace(/\.name$/, '.title')
    .replace(/\.imageUrl$/, '.image')
    .replace(/\.stock$/, '.inventory')
    .replace(/\.code$/, '.id');
}

/** Reads a create/update body; `defaultCurrency` is the store's. Every bad field at once, as a 422. */
export function readPosAppBody(body: JsonValue | undefined, defaultCurrency: string, hasRate: (code: string) => boolean): AppInput {
  if (!isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'The body must be a JSON object' }]);
  const errors: GreenfieldFieldError[] = [];
  const bad = (path: string, message: string) => errors.push({ path, message });
  for (const key of Object.keys(body)) if (!KNOWN.has(key) && !IGNORED.has(key)) bad(key, 'is not a field of a point of sale app');
  const text = (name: string): string | null => {
    const v = body[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') return bad(name, 'must be a string'), null;
    return v;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const v = body[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') return bad(name, 'must be true or false'), fallback;
    return v;
  };
  const appName = text('appName');
  if (appName === null || appName.trim() === '') bad('appName', 'is required');
  const view = text('defaultView');
  if (view !== null && !['Static', 'Cart', 'Light', 'Print'].includes(view)) bad('defaultView', 'must be Static, Cart, Light or Print');
  if (view === 'Print') bad('defaultView', 'Print (a printed price list) is not offered: use Cart for items or Light for a keypad');
  const keypadOnly = view === 'Light';
  const enableTips = flag('enableTips', true);
  let presets: number[] = enableTips ? BTCPAY_DEFAULT_TIPS : [];
  const p = body.customTipPercentages;
  if (p !== undefined && p !== null) {
    if (!Array.isArray(p) || !p.every((x) => x instanceof JsonNumber && /^\d{1,3}$/.test(x.text))) bad('customTipPercentages', 'must be an array of whole percentages');
    else if (enableTips) presets = p.map((x) => Number((x as JsonNumber).text));
  }
  let rawItems: JsonValue = [];
  if (body.items !== undefined && body.items !== null) {
    if (body.template !== undefined && body.template !== null) bad('template', 'must be left out when items are given');
    rawItems = body.items;
  } else if (body.template !== undefined && body.template !== null) {
    const t = body.template;
    if (typeof t !== 'string') bad('template', 'must be a JSON array of items, as text');
    else if (t.trim() !== '') {
      try {
        rawItems = parseExactJson(t);
      } catch {
        bad('template', 'must be a JSON array of items, as text');
      }
    }
  }
  const items: ItemInput[] = [];
  if (!Array.isArray(rawItems)) bad('items', 'must be an array of items');
  else
    rawItems.forEach((raw, i) => {
      const at = `items[${i}]`;
      if (!isJsonObject(raw)) return bad(at, 'must be an object');
      for (const key of Object.keys(raw)) if (!ITEM_KNOWN.has(key) && !ITEM_IGNORED.has(key)) bad(`${at}.${key}`, 'is not a field of an item');
      const str = (name: string): string | null => {
        const v = raw[name];
        if (v === undefined || v === null) return null;
        if (typeof v !== 'string') return bad(`${at}.${name}`, 'must be a string'), null;
        return v;
      };
      if (raw.disabled === true) bad(`${at}.disabled`, 'disabled items are not kept: leave the item out');
      const priceType = str('priceType');
      if (priceType !== null && priceType !== 'Fixed') bad(`${at}.priceType`, 'must be Fixed: a counter charges the item at its price');
      let price: string | null = null;
      const pv = raw.price;
      if (typeof pv === 'string') price = pv;
      else if (pv instanceof JsonNumber) {
        try {
          price = pv.toDecimal();
        } catch {
          bad(`${at}.price`, 'must be a decimal number');
        }
      } else if (pv !== undefined && pv !== null) bad(`${at}.price`, 'must be a decimal string, such as "3.50"');
      let stock: string | null = null;
      const inv = raw.inventory;
      if (inv instanceof JsonNumber) stock = inv.text;
      else if (inv !== undefined && inv !== null) bad(`${at}.inventory`, 'must be a whole number or null');
      items.push({ code: str('id'), name: str('title'), price, imageUrl: str('image'), description: str('description'), stock });
    });
  const currency = text('currency');
  const input: AppInput = {
    appName,
    title: text('title') ?? appName,
    description: text('description'),
    currency: currency === null || currency === '' ? defaultCurrency : currency,
    keypadOnly,
    customAmount: flag('showCustomAmount', false),
    tipPresets: presets,
    customTip: enableTips,
    defaultLanguage: text('htmlLang'),
    items: keypadOnly ? [] : items,
  };
  if (keypadOnly && items.length > 0) bad('items', 'must be empty for the Light (keypad) view');
  const checked = checkApp(input, hasRate);
  if (!checked.ok) {
    const named = new Set(errors.map((e) => e.path));
    for (const problem of checked.errors) {
      const path = btcpayPath(problem.field);
      // A title left out is the appName's: its refusal is already said under appName.
      if (path === 'title' && (body.title === undefined || body.title === null) && named.has('appName')) continue;
      if (!named.has(path)) bad(path, problem.message);
    }
  }
  if (errors.length > 0) throw new GreenfieldValidationError(errors);
  return input;
}

/** BTCPay's BasicAppData of an app. */
export function basicAppJson(view: PosView): Record<string, unknown> {
  const { app } = view;
  return { id: app.app_id, appName: app.app_name, name: app.app_name, storeId: view.storeId, created: Math.floor(Number(app.created_at) / 1000), appType: 'PointOfSale', archived: false };
}

/** BTCPay's PointOfSaleAppData of an app, with its items as BTCPay's AppItem. */
export function posAppJson(view: PosView): Record<string, unknown> {
  const { app } = view;
  const presets = tipPresetsOf(app);
  const tips = presets.length > 0 || Number(app.custom_tip) === 1;
  return {
    ...basicAppJson(view),
    title: app.title,
    description: app.description,
    defaultView: Number(app.keypad_only) === 1 ? 'Light' : 'Cart',
    showItems: Number(app.keypad_only) !== 1,
    showCustomAmount: Number(app.custom_amount) === 1,
    showDiscount: false,
    showSearch: false,
    showCategories: false,
    enableTips: tips,
    customTipPercentages: presets,
    currency: app.currency,
    htmlLang: app.default_language,
    items: view.items.map((i) => ({
      id: i.item_code,
      title: i.name,
      description: i.description,
      image: i.image_url,
      price: i.price,
      priceType: 'Fixed',
      inventory: i.stock === null ? null : Number(i.stock),
      disabled: false,
      categories: [],
      buyButtonText: null,
    })),
    fixedAmountPayButtonText: null,
    customAmountPayButtonText: null,
    tipText: null,
    notificationUrl: null,
    redirectUrl: null,
    redirectAutomatically: null,
    formId: null,
  };
}

/**
 * The metadata of the invoice a charge becomes, as BTCPay's POS writes it: orderId `pos-app_<appId>`, itemDesc the
 * app's title, itemCode the item when the cart holds one kind, and posData with the cart, subTotal, tip and total
 * (as exact decimal strings: satgate never writes money as floating point).
 */
export function posInvoiceMetadata(view: PosView, cart: PricedCart, at: number): JsonObject {
  const n = (value: number) => new JsonNumber(String(value));
  const metadata: JsonObject = {
    orderId: `pos-app_${view.app.app_id}`,
    itemDesc: view.app.title,
    posData: {
      cart: cart.lines.map((l) => ({ id: l.code, title: l.name, price: l.unitPrice, count: n(l.quantity) })),
      customAmount: cart.customAmount ?? '0',
      discountAmount: '0',
      discountPercentage: n(0),
      subTotal: cart.subtotal,
      tip: cart.tip,
      ...(cart.tipPercent !== null ? { tipPercentage: n(cart.tipPercent) } : {}),
      total: cart.total,
      createdAt: isoUtc(at),
    },
  };
  if (cart.lines.length === 1 && cart.customAmount === null) metadata.itemCode = cart.lines[0]!.code;
  return metadata;
}

const Nullable = (type: string) => ({ type: [type, 'null'] });

/** JSON schemas of the answers, written from BTCPay's OpenAPI document (BasicAppData, PointOfSaleAppData, AppItem). */
export const APP_SCHEMAS = {
  BasicAppData: {
    type: 'object',
    required: ['id', 'appName', 'storeId', 'created', 'appType'],
    properties: {
      id: { type: 'string' },
      appName: { type: 'string' },
      name: { type: 'string' },
      storeId: { type: 'string' },
      created: { type: 'integer' },
      appType: { type: 'string', enum: ['PointOfSale'] },
      archived: { type: 'boolean' },
    },
  },
  AppItem: {
    type: 'object',
    required: ['id', 'title', 'price', 'priceType'],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      description: Nullable('string'),
      image: Nullable('string'),
      price: { type: 'string', format: 'decimal' },
      priceType: { type: 'string', enum: ['Fixed', 'Topup', 'Minimum'] },
      inventory: Nullable('integer'),
      disabled: { type: 'boolean' },
      categories: { type: 'array', items: { type: 'string' } },
      buyButtonText: Nullable('string'),
    },
  },
} as const;

export const POS_APP_SCHEMAS = {
  ...APP_SCHEMAS,
  PointOfSaleAppData: {
    type: 'object',
    required: ['id', 'appName', 'storeId', 'created', 'appType', 'title', 'defaultView', 'currency', 'items', 'enableTips', 'showCustomAmount'],
    properties: {
      ...APP_SCHEMAS.BasicAppData.properties,
      title: { type: 'string' },
      description: Nullable('string'),
      defaultView: { type: 'string', enum: ['Static', 'Cart', 'Light', 'Print'] },
      showItems: { type: 'boolean' },
      showCustomAmount: { type: 'boolean' },
      showDiscount: { type: 'boolean' },
      showSearch: { type: 'boolean' },
      showCategories: { type: 'boolean' },
      enableTips: { type: 'boolean' },
      customTipPercentages: { type: 'array', items: { type: 'integer' } },
      currency: { type: 'string' },
      htmlLang: Nullable('string'),
      items: { type: 'array', items: APP_SCHEMAS.AppItem },
      fixedAmountPayButtonText: Nullable('string'),
      customAmountPayButtonText: Nullable('string'),
      tipText: Nullable('string'),
      notificationUrl: Nullable('string'),
      redirectUrl: Nullable('string'),
      redirectAutomatically: Nullable('boolean'),
      formId: Nullable('string'),
    },
  },
  CreatePointOfSaleAppRequest: {
    type: 'object',
    properties: {
      appName: { type: 'string' },
      title: Nullable('string'),
      description: Nullable('string'),
      template: Nullable('string'),
      items: { type: ['array', 'null'], items: APP_SCHEMAS.AppItem },
      defaultView: Nullable('string'),
      currency: Nullable('string'),
      showCustomAmount: Nullable('boolean'),
      enableTips: Nullable('boolean'),
      customTipPercentages: { type: ['array', 'null'], items: { type: 'integer' } },
      htmlLang: Nullable('string'),
    },
  },
} as const;
