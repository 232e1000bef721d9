// The payment update notification of INTERFACE.md 6.2 (DESIGN.md section 9 "payment update"), built
// from an order and its derived state. The same body goes to the webhook and, rendered, to e-mail.
import { btcFromSats } from '../money/money.ts';
import { exactNumber } from '../money/canonical-json.ts';
import type { OrderState, OrderStatus } from './order-state.ts';
import type { UserField } from './form-request.ts';

/** Why a notification is sent (6.2 triggers); several can hold at once. */
export type UpdateTrigger = 'transaction' | 'confirmation' | 'status' | 'withdrawn';

/** What the body says about the order itself. */
export interface OrderFacts {
  apiId: string;
  orderId: string;
  orderAmount: string | null;
  orderCurrency: string;
  userId: string | null;
  userEmail: string | null;
  userFields: readonly UserField[];
  authToken: string;
  address: string;
  cryptoCurrency: 'BTC' | 'testBTC';
  exchangeRate: string;
  /** 'form' or 'set_addr'. */
  source: 'form' | 'set_addr';
}

/**
 * The order status a notification reports: one of the four of 3.2. `pending` (nothing received yet,
 * still open, which only a double-spent payment going back can notify) is reported as `failed` with
 * payment_status `unconfirmed`: in processing, nothing counted (3.2 handling rule 1).
 */
export function reportedOrderStatus(status: OrderStatus): Exclude<OrderStatus, 'pending'> {
  return status === 'pending' ? 'failed' : status;
}

/** The 6.2 body: envelope, both token spellings, the request's fields, the payer's values and the payment block. */
export function paymentUpdateBody(order: OrderFacts, state: OrderState, triggers: readonly UpdateTrigger[]): Record<string, unknown> {
  return {
    return: '0',
    status: 'OK',
    event: 'payment_update',
    triggers: [...triggers],
    auth_response_token: order.authToken,
    response_auth_token: order.authToken,
    api_id: order.apiId,
    order_id: order.orderId,
    order_amount: order.orderAmount === null ? null : exactNumber(order.orderAmount),
    order_currency: order.orderCurrency,
    user_id: order.userId,
    user_email: order.userEmail,
    user_fields: order.userFields.map((f) => ({ name: f.name, display_name: f.display_name, required: f.required, type: f.type, value: f.value })),
    payment_status: state.paymentStatus,
    order_status: reportedOrderStatus(state.orderStatus),
    source: order.source,
    payment: {
      address: order.address,
      crypto_currency: order.cryptoCurrency,
      crypto_amount: btcFromSats(state.lockSats),
      exchange_rate: order.exchangeRate,
      crypto_amount_paid_conf: btcFromSats(state.confirmedSats),
      crypto_amount_paid_unconf: btcFromSats(state.unconfirmedSats),
      transactions: state.transactions.map((t) => ({ txid: t.txid, value: btcFromSats(t.sats), confirmations: t.confirmations })),
    },
  };
}

/** What changed since the last notification: new transactions, newly confirmed ones, vanished ones, a new status. */
export function triggersOf(
  before: Readonly<Record<string, boolean>>,
  state: OrderState,
  statusChanged: boolean,
): UpdateTrigger[] {
  const out: UpdateTrigger[] = [];
  const now = new Map(state.transactions.map((t) => [t.txid, t.confirmed]));
  if ([...now.keys()].some((txid) => !(txid in before))) out.push('transaction');
  if ([...now.entries()].some(([txid, confirmed]) => confirmed && before[txid] === false)) out.push('confirmation');
  if (Object.keys(before).some((txid) => !now.has(txid))) out.push('withdrawn');
  if (statusChanged) out.push('status');
  return out;
}
