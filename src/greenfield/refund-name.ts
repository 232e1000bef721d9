// How a Greenfield refund names the invoice it refunds. The WooCommerce plugin (AbstractGateway::process_refund)
// sends no invoice id and no description, only the name
//   __('Refund of order ') . $order->get_order_number() . '; ' . $reason, cut to 50 bytes,
// and the invoice it created for the order carries the same order number as metadata.orderId. The reason is free
// text that may name other orders ("12 items arrived damaged"), so only the text between the prefix and a "; " is
// read; since an order number could itself hold "; ", every such reading is kept and the caller refuses a name that
// more than one reading matches. Other clients may name the invoice itself: "Refund of invoice <id>; <reason>".

/** The prefix the WooCommerce plugin writes (its English text; a translated one is not read). */
export const ORDER_PREFIX = 'Refund of order ';
/** satgate's own form, naming the invoice id (for an order paid by more than one invoice). */
export const INVOICE_PREFIX = 'Refund of invoice ';
/** The accepted forms, as error messages state them. */
export const REFUND_NAME_FORMS = '"Refund of order <order number>; <reason>" (as the WooCommerce plugin writes it) or "Refund of invoice <invoice id>; <reason>"';

/** What a refund name names: an order number or an invoice id, with every way the name can be read. */
export interface RefundReference {
  by: 'order' | 'invoice';
  /** The text before each "; " (or before a ";" that ends the name, where the plugin's 50-byte cut fell), in order. */
  readings: string[];
}

/** Reads a refund name; undefined when it is in neither form (or was cut before the "; " ending the number). */
export function readRefundName(name: string | null | undefined): RefundReference | undefined {
  if (typeof name !== 'string') return undefined;
  const by = name.startsWith(ORDER_PREFIX) ? 'order' : name.startsWith(INVOICE_PREFIX) ? 'invoice' : undefined;
  if (by === undefined) return undefined;
  const rest = name.slice((by === 'order' ? ORDER_PREFIX : INVOICE_PREFIX).length);
  const readings: string[] = [];
  for (let i = rest.indexOf(';'); i !== -1; i = rest.indexOf(';', i + 1)) {
    if (i > 0 && (rest[i + 1] === ' ' || i === rest.length - 1)) readings.push(rest.slice(0, i));
  }
  return readings.length > 0 ? { by, readings } : undefined;
}

/**
 * Whether a pull payment's name makes it a refund (the WooCommerce plugin's, or one naming an invoice): a name
 * beginning with the word "refund" in any case. Only such names must then name an invoice in one of the forms
 * above; any other name (or none) is a general pull payment, whose payee claims payouts (payouts.ts).
 */
export function isRefundName(name: string | null | undefined): boolean {
  return typeof name === 'string' && /^\s*refund\b/i.test(name);
}
