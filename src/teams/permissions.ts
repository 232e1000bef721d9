// The one permission table of store teams (issue 40): what each role of a wallet's members may do. The console,
// the dashboard API and Greenfield key creation consult only this table (src/teams/route-actions.ts names the
// action of every guarded route); a hidden button is never the only refusal.
import { DomainError } from '../core/domain-errors.ts';

/** A member's role in one wallet. */
export const ROLES = ['Owner', 'Manager', 'Accountant', 'Cashier', 'Developer', 'Guest'] as const;
export type Role = (typeof ROLES)[number];

/** What a member may be allowed to do with a wallet. */
export const ACTIONS = [
  'view_payments',
  'create_payments',
  'refund',
  'spend',
  'change_settings',
  'manage_members',
  'manage_keys',
  'view_reports',
  'use_pos',
  'view_audit',
] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * Action -> the roles that may. Owner: everything. Manager: everything but the team. Accountant: payments and
 * reports, read only. Cashier: the point of sale and creating payments (and seeing them). Developer: webhooks and
 * settings, API keys, reading payments. Guest: read only. The audit trail (who did what): Owners and Managers.
 */
export const PERMISSIONS: Readonly<Record<Action, readonly Role[]>> = {
  view_payments: ['Owner', 'Manager', 'Accountant', 'Cashier', 'Developer', 'Guest'],
  create_payments: ['Owner', 'Manager', 'Cashier'],
  refund: ['Owner', 'Manager'],
  spend: ['Owner', 'Manager'],
  change_settings: ['Owner', 'Manager', 'Developer'],
  manage_members: ['Owner'],
  manage_keys: ['Owner', 'Manager', 'Developer'],
  view_reports: ['Owner', 'Manager', 'Accountant', 'Guest'],
  use_pos: ['Owner', 'Manager', 'Cashier'],
  view_audit: ['Owner', 'Manager'],
};

/** Whether a role may do an action. */
export function may(role: Role, action: Action): boolean {
  return PERMISSIONS[action].includes(role);
}

/** Whether a text is a role's name (exact, case-sensitive). */
export function isRole(text: unknown): text is Role {
  return typeof text === 'string' && (ROLES as readonly string[]).includes(text);
}

/** The refusal every face turns into its own 403 shape. */
export function refusal(action: Action): DomainError {
  return new DomainError('forbidden', `Your role in this wallet does not allow this (${action.replace('_', ' ')}).`);
}

/**
 * Greenfield permission strings (src/greenfield/permissions.ts POLICIES, BTCPay's names) -> the actions a key with
 * it can take. A member may only grant a key policies whose every action their role may do; an unknown policy maps
 * to nothing (it is never granted anyway).
 */
export const GREENFIELD_ACTIONS: Readonly<Record<string, readonly Action[]>> = {
  'btcpay.store.canviewinvoices': ['view_payments'],
  'btcpay.store.cancreateinvoice': ['create_payments'],
  'btcpay.store.canmodifyinvoices': ['view_payments', 'create_payments', 'refund'],
  'btcpay.store.canviewstoresettings': ['view_payments', 'view_reports'],
  'btcpay.store.canmodifystoresettings': ['change_settings', 'refund', 'spend', 'create_payments', 'view_reports', 'manage_keys'],
  'btcpay.store.webhooks.canmodifywebhooks': ['change_settings'],
  'btcpay.store.cancreatenonapprovedpullpayments': ['refund'],
  'btcpay.store.cancreatepullpayments': ['refund', 'spend'],
  'btcpay.store.canmanagepullpayments': ['refund', 'spend'],
  'btcpay.store.canarchivepullpayments': ['refund'],
  'btcpay.store.canviewpullpayments': ['view_payments'],
  'btcpay.store.canviewreports': ['view_reports'],
  'btcpay.store.canviewpaymentrequests': ['view_payments'],
  'btcpay.store.canmodifypaymentrequests': ['create_payments'],
};

/** Whether a role may create a Greenfield key (or OAuth grant) carrying this policy. */
export function mayGrant(role: Role, policy: string): boolean {
  const actions = GREENFIELD_ACTIONS[policy];
  return actions !== undefined && may(role, 'manage_keys') && actions.every((a) => may(role, a));
}
