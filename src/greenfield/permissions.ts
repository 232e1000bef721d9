// BTCPay's permission strings as Greenfield keys carry them: a policy name, scoped to one store by a
// `:<storeId>` suffix. satgate keys are always for one store, so a policy without a store counts for the key's.
import { GREENFIELD_ACTIONS, may, type Role } from '../teams/permissions.ts';

/** The policies satgate understands (BTCPay's names). */
export const POLICIES = {
  viewInvoices: 'btcpay.store.canviewinvoices',
  createInvoice: 'btcpay.store.cancreateinvoice',
  modifyInvoices: 'btcpay.store.canmodifyinvoices',
  viewStoreSettings: 'btcpay.store.canviewstoresettings',
  modifyStoreSettings: 'btcpay.store.canmodifystoresettings',
  modifyWebhooks: 'btcpay.store.webhooks.canmodifywebhooks',
  createNonApprovedPullPayments: 'btcpay.store.cancreatenonapprovedpullpayments',
  createPullPayments: 'btcpay.store.cancreatepullpayments',
  managePullPayments: 'btcpay.store.canmanagepullpayments',
  archivePullPayments: 'btcpay.store.canarchivepullpayments',
  viewPullPayments: 'btcpay.store.canviewpullpayments',
  viewReports: 'btcpay.store.canviewreports',
  viewPaymentRequests: 'btcpay.store.canviewpaymentrequests',
  modifyPaymentRequests: 'btcpay.store.canmodifypaymentrequests',
} as const;

/** One policy name. */
export type Policy = (typeof POLICIES)[keyof typeof POLICIES];

const KNOWN: ReadonlySet<string> = new Set(Object.values(POLICIES));

/**
 * What a broader policy includes, as BTCPay grants it: modifying store settings includes everything of the store;
 * viewing store settings includes viewing reports; modifying invoices includes viewing and creating them; modifying
 * payment requests includes viewing them; creating pull payments includes non-approved ones; managing pull payments
 * includes creating, archiving and viewing them (and approving, cancelling and marking their payouts, which only it
 * grants).
 */
const INCLUDES: Record<string, readonly string[]> = {
  [POLICIES.modifyStoreSettings]: Object.values(POLICIES),
  [POLICIES.viewStoreSettings]: [POLICIES.viewReports],
  [POLICIES.modifyInvoices]: [POLICIES.viewInvoices, POLICIES.createInvoice],
  [POLICIES.createPullPayments]: [POLICIES.createNonApprovedPullPayments],
  [POLICIES.managePullPayments]: [POLICIES.createPullPayments, POLICIES.createNonApprovedPullPayments, POLICIES.archivePullPayments, POLICIES.viewPullPayments],
  [POLICIES.modifyPaymentRequests]: [POLICIES.viewPaymentRequests],
};

/** What the WooCommerce plugin asks for (its key-authorization link), the default of `greenfield key create`. */
export const WOOCOMMERCE_POLICIES: readonly Policy[] = [
  POLICIES.viewInvoices,
  POLICIES.createInvoice,
  POLICIES.modifyInvoices,
  POLICIES.modifyWebhooks,
  POLICIES.viewStoreSettings,
  POLICIES.createNonApprovedPullPayments,
];

/** Whether a policy name is one satgate knows. */
export function isKnownPolicy(name: string): name is Policy {
  return KNOWN.has(name);
}

/** Splits `policy[:storeId]`. */
export function parsePermission(permission: string): { policy: string; storeId: string | null } {
  const colon = permission.indexOf(':');
  return colon < 0 ? { policy: permission, storeId: null } : { policy: permission.slice(0, colon), storeId: permission.slice(colon + 1) };
}

/** The permission strings of a key for one store, each scoped `policy:storeId` as BTCPay writes them. */
export function scopedPermissions(policies: readonly string[], storeId: string): string[] {
  return [...new Set(policies.map((p) => `${parsePermission(p).policy}:${storeId}`))];
}

/** Whether permissions grant `policy` on `storeId` (directly or through a broader policy). */
export function grants(permissions: readonly string[], policy: Policy, storeId: string): boolean {
  for (const p of permissions) {
    const parsed = parsePermission(p);
    if (parsed.storeId !== null && parsed.storeId !== storeId) continue;
    if (parsed.policy === policy || INCLUDES[parsed.policy]?.includes(policy)) return true;
  }
  return false;
}

/** Whether every action of a policy is one the role may take (the permission table, src/teams/permissions.ts). */
function withinRole(policy: string, role: Role): boolean {
  const actions = GREENFIELD_ACTIONS[policy];
  return actions !== undefined && actions.length > 0 && actions.every((a) => may(role, a));
}

/**
 * A key's permissions cut down to what its creator's role may do now (issue 40: "reduced", not revoked). A policy
 * within the role stays; one beyond it is replaced by the narrower policies it includes that are within the role
 * (modifying invoices for a Cashier: creating and viewing them). Judged on every use, so a lowered role takes effect
 * on the key's next request and a raised one gives nothing the key was not created with.
 */
export function reducedToRole(permissions: readonly string[], role: Role): string[] {
  const out = new Set<string>();
  for (const p of permissions) {
    const { policy, storeId } = parsePermission(p);
    if (withinRole(policy, role)) {
      out.add(p);
      continue;
    }
    for (const narrower of INCLUDES[policy] ?? []) if (withinRole(narrower, role)) out.add(storeId === null ? narrower : `${narrower}:${storeId}`);
  }
  return [...out];
}
