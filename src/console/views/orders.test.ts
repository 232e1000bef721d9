import { describe, expect, it } from 'vitest';
import { renderOrders } from './orders.ts';
import type { OrderSummary } from '../../dashboard/merchant-orders.ts';

const base = { assets: { css: '/console/assets/console.css', js: '/console/assets/console.js' }, user: { email: 'm@shop.example', csrf: 'x' } };

function order(over: Partial<OrderSummary>): OrderSummary {
  return { kind: 'payment', id: '1', reference: 'PAY1', api_id: 'test_a', account_name: 'Shop', status: 'unpaid', created_at: 0, amount: '49.9', currency: 'EUR', address: 'tb1q', ...over };
}

describe('the console\'s payments list', () => {
  it('shows fiat amounts with their currency\'s minor units and BTC amounts as they are', () => {
    const html = renderOrders(base, { orders: [order({}), order({ id: '2', amount: '1500', currency: 'JPY' }), order({ id: '3', kind: 'order', amount: '0.0005', currency: 'BTC' })], page: 1, page_size: 50, total: 3 }, {});
    expect(html).toContain('49.90 EUR');
    expect(html).toContain('1500 JPY');
    expect(html).toContain('0.0005 BTC');
  });
});
