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
