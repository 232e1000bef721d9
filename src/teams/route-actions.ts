// Every guarded route of the console and the dashboard API -> the action of the permission table it takes, and
// where the wallet it acts on is named. The faces' guards (src/teams/guard.ts) refuse a state-changing route that
// is missing here, and the matrix test (src/teams/team-matrix.test.ts) reads the app's routes and fails on one.
import type { Action } from './permissions.ts';

/**
 * Where a route names its wallet: the `api_id` of its path, form/body or query; the Greenfield `storeId` posted; an order (`:kind/:id`) or a point
 * of sale (`pos_id`) the face resolves to its wallet; `none` for the signed-in person's own things (profile, sign
 * out, adding a wallet of their own, which makes them its Owner); `public` before sign-in.
 */
export type WalletLocator = 'param' | 'body' | 'query' | 'store' | 'order' | 'pos' | 'none' | 'public';

/** One guarded route. */
export interface RouteRule {
  action: Action | null;
  wallet: WalletLocator;
}

const own: RouteRule = { action: null, wallet: 'none' };
const open: RouteRule = { action: null, wallet: 'public' };

/** `METHOD url` (Fastify's url pattern) -> its rule. Every POST of /console and /dashboard, and the reads the table restricts. */
export const ROUTE_ACTIONS: Readonly<Record<string, RouteRule>> = {
  // Console
  'POST /console/login': open,
  'POST /console/login/code': open,
  'POST /console/logout': own,
  'POST /console/profile': own,
  'POST /console/wallets': own,
  // The settings page itself (its form and webhook): refused by URL too to a role that may not change them.
  'GET /console/wallets/:api_id': { action: 'change_settings', wallet: 'param' },
  'POST /console/wallets/:api_id': { action: 'change_settings', wallet: 'param' },
  'POST /console/orders/:kind/:id/redeliver': { action: 'change_settings', wallet: 'order' },
  'POST /console/orders/:kind/:id/refund': { action: 'refund', wallet: 'order' },
  'POST /console/refunds/signed': { action: 'spend', wallet: 'body' },
  'GET /console/refunds/psbt': { action: 'spend', wallet: 'query' },
  'POST /console/payouts/signed': { action: 'spend', wallet: 'body' },
  'GET /console/payouts/psbt': { action: 'spend', wallet: 'query' },
  'POST /console/buttons': { action: 'change_settings', wallet: 'body' },
  'POST /console/requests': { action: 'create_payments', wallet: 'body' },
  'POST /console/pos': { action: 'change_settings', wallet: 'body' },
  'POST /console/pos/delete': { action: 'change_settings', wallet: 'pos' },
  'GET /console/reports': { action: 'view_reports', wallet: 'query' },
  'GET /console/reports/ledger': { action: 'view_reports', wallet: 'query' },
  'GET /console/wallets/:api_id/members': { action: 'manage_members', wallet: 'param' },
  'POST /console/wallets/:api_id/members': { action: 'manage_members', wallet: 'param' },
  'GET /console/wallets/:api_id/audit': { action: 'view_audit', wallet: 'param' },
  // Accepting an invitation: the signed-in person's own step (the invitation, not a role, says which wallet and role).
  'POST /console/invitations/accept': own,
  // Dashboard API
  'POST /send_otp': open,
  'POST /check_otp': open,
  'POST /update_profile': own,
  'POST /get_accounts': own,
  'POST /logout': own,
  'POST /dashboard/wallets': own,
  'POST /dashboard/wallets/:api_id': { action: 'change_settings', wallet: 'param' },
  'POST /dashboard/orders/:kind/:id/redeliver': { action: 'change_settings', wallet: 'order' },
  'GET /dashboard/wallets/:api_id/reports/ledger': { action: 'view_reports', wallet: 'param' },
  'GET /dashboard/wallets/:api_id/reports/summary': { action: 'view_reports', wallet: 'param' },
  'GET /dashboard/wallets/:api_id/members': { action: 'manage_members', wallet: 'param' },
  'POST /dashboard/wallets/:api_id/members': { action: 'manage_members', wallet: 'param' },
  'POST /dashboard/wallets/:api_id/members/change': { action: 'manage_members', wallet: 'param' },
  'GET /dashboard/wallets/:api_id/invitations': { action: 'manage_members', wallet: 'param' },
  'POST /dashboard/wallets/:api_id/invitations': { action: 'manage_members', wallet: 'param' },
  'POST /dashboard/wallets/:api_id/invitations/revoke': { action: 'manage_members', wallet: 'param' },
  // The dashboard API's refunds (src/refunds/routes.ts). A refund request names a transaction, not a wallet: judged
  // by every role the person holds (`none` with an action), as a page that names no wallet is.
  'POST /refund_request': { action: 'refund', wallet: 'none' },
  'GET /refunds/psbt': { action: 'spend', wallet: 'query' },
  'POST /refunds/signed': { action: 'spend', wallet: 'body' },
  // Greenfield key creation (the authorize page; it checks each permission granted with mayGrant too)
  'POST /api-keys/authorize/code': open,
  'POST /api-keys/authorize/sign-in': open,
  'POST /api-keys/authorize/decide': { action: 'manage_keys', wallet: 'store' },
};

/** Whether a method changes state (and so must have a rule). */
export const changesState = (method: string): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());

/**
 * Every state-changing Greenfield route (/api/v1, the payment API's /api/v1/payment/ aside) -> the policy its
 * guard asks of the key (src/greenfield: storePermission, requireStorePermission, the storeId-less aliases, the
 * apps' appOf): its actions are GREENFIELD_ACTIONS[policy]. A member's key carries only the policies their role
 * may (GreenfieldKeys.verify reduces it on every use), so these routes obey the permission table through the key;
 * `own` is the key's own business (revoking itself), `public` takes no key (a payee claiming a payout). The
 * matrix test (src/teams/team-matrix-greenfield.test.ts) reads the app's routes and fails on one missing here.
 */
export const GREENFIELD_ROUTE_POLICIES: Readonly<Record<string, string>> = {
  'POST /api/v1/stores/:storeId/invoices': 'btcpay.store.cancreateinvoice',
  'PUT /api/v1/stores/:storeId/invoices/:invoiceId': 'btcpay.store.canmodifyinvoices',
  'DELETE /api/v1/stores/:storeId/invoices/:invoiceId': 'btcpay.store.canmodifyinvoices',
  'POST /api/v1/stores/:storeId/invoices/:invoiceId/unarchive': 'btcpay.store.canmodifyinvoices',
  'POST /api/v1/stores/:storeId/invoices/:invoiceId/status': 'btcpay.store.canmodifyinvoices',
  'PUT /api/v1/invoices/:invoiceId': 'btcpay.store.canmodifyinvoices',
  'DELETE /api/v1/invoices/:invoiceId': 'btcpay.store.canmodifyinvoices',
  'POST /api/v1/invoices/:invoiceId/unarchive': 'btcpay.store.canmodifyinvoices',
  'POST /api/v1/invoices/:invoiceId/status': 'btcpay.store.canmodifyinvoices',
  'POST /api/v1/stores/:storeId/payment-requests': 'btcpay.store.canmodifypaymentrequests',
  'PUT /api/v1/stores/:storeId/payment-requests/:paymentRequestId': 'btcpay.store.canmodifypaymentrequests',
  'DELETE /api/v1/stores/:storeId/payment-requests/:paymentRequestId': 'btcpay.store.canmodifypaymentrequests',
  // Paying a payment request creates its invoice, as its public page does: BTCPay asks only to view it.
  'POST /api/v1/stores/:storeId/payment-requests/:paymentRequestId/pay': 'btcpay.store.canviewpaymentrequests',
  'PUT /api/v1/payment-requests/:paymentRequestId': 'btcpay.store.canmodifypaymentrequests',
  'DELETE /api/v1/payment-requests/:paymentRequestId': 'btcpay.store.canmodifypaymentrequests',
  'POST /api/v1/payment-requests/:paymentRequestId/pay': 'btcpay.store.canviewpaymentrequests',
  'PUT /api/v1/stores/:storeId/payment-methods/:pm': 'btcpay.store.canmodifystoresettings',
  'PUT /api/v1/stores/:storeId/payment-methods/:pm/:code': 'btcpay.store.canmodifystoresettings',
  'DELETE /api/v1/stores/:storeId/payment-methods/:pm/wallet/address': 'btcpay.store.canmodifystoresettings',
  'DELETE /api/v1/stores/:storeId/payment-methods/:pm/:code/wallet/address': 'btcpay.store.canmodifystoresettings',
  'POST /api/v1/stores/:storeId/payment-methods/:pm/wallet/transactions': 'btcpay.store.canmodifystoresettings',
  'POST /api/v1/stores/:storeId/payment-methods/:pm/:code/wallet/transactions': 'btcpay.store.canmodifystoresettings',
  'POST /api/v1/stores/:storeId/pull-payments': 'btcpay.store.cancreatenonapprovedpullpayments',
  'DELETE /api/v1/stores/:storeId/pull-payments/:pullPaymentId': 'btcpay.store.canarchivepullpayments',
  'DELETE /api/v1/pull-payments/:pullPaymentId': 'btcpay.store.canarchivepullpayments',
  'POST /api/v1/pull-payments/:pullPaymentId/payouts': 'public',
  'POST /api/v1/stores/:storeId/payouts': 'btcpay.store.cancreatenonapprovedpullpayments',
  'POST /api/v1/stores/:storeId/payouts/:payoutId': 'btcpay.store.canmanagepullpayments',
  'DELETE /api/v1/stores/:storeId/payouts/:payoutId': 'btcpay.store.canmanagepullpayments',
  'POST /api/v1/stores/:storeId/payouts/:payoutId/mark-paid': 'btcpay.store.canmanagepullpayments',
  'POST /api/v1/stores/:storeId/payouts/signed': 'btcpay.store.canmanagepullpayments',
  'POST /api/v1/payouts/:payoutId': 'btcpay.store.canmanagepullpayments',
  'DELETE /api/v1/payouts/:payoutId': 'btcpay.store.canmanagepullpayments',
  'POST /api/v1/payouts/:payoutId/mark-paid': 'btcpay.store.canmanagepullpayments',
  'POST /api/v1/stores/:storeId/webhooks': 'btcpay.store.webhooks.canmodifywebhooks',
  'PUT /api/v1/stores/:storeId/webhooks/:webhookId': 'btcpay.store.webhooks.canmodifywebhooks',
  'DELETE /api/v1/stores/:storeId/webhooks/:webhookId': 'btcpay.store.webhooks.canmodifywebhooks',
  'POST /api/v1/stores/:storeId/webhooks/:webhookId/deliveries/:deliveryId/redeliver': 'btcpay.store.webhooks.canmodifywebhooks',
  'POST /api/v1/stores/:storeId/apps/pos': 'btcpay.store.canmodifystoresettings',
  'PUT /api/v1/apps/pos/:appId': 'btcpay.store.canmodifystoresettings',
  'DELETE /api/v1/apps/:appId': 'btcpay.store.canmodifystoresettings',
  // A report is asked by POST (its body is the query) but changes nothing.
  'POST /api/v1/stores/:storeId/reports': 'btcpay.store.canviewreports',
  'DELETE /api/v1/api-keys/current': 'own',
};
