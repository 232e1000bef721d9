// The rule of every address-issuing call without a login (set_addr and payment_form, DESIGN.md 11), which the
// issuer applies inside the reserving transaction (address-issuer.ts): open unpaid reservations never take a wallet
// more than its gap limit past its last used address, an expired order's address is kept back for a grace period
// before it is handed out again, and the calls are rate-limited per wallet and per IP address.
import { isoUtc } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { Limit } from '../security/rate-limiter.ts';

/** Addresses past the last funded one that wallets scan by default (BIP44 gap limit). */
export const GAP_LIMIT = 20;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The issuing rule's settings (Config's gapLimit, orderReuseGraceMs, issueLimitPerWallet, issueLimitPerIp). */
export interface IssuingRules {
  /** Unused addresses past the last used one that a wallet scans: order addresses never lie further out. */
  gapLimit: number;
  /** How long after its reservation ended an unpaid order address is kept back from other orders. */
  reuseGraceMs: number;
  /** Order addresses handed out a minute for one wallet; 0: no limit. */
  perWalletPerMinute: number;
  /** Order addresses handed out a minute to one IP address; 0: no limit. */
  perIpPerMinute: number;
}

/**
 * The defaults: the wallets' own gap limit; the payment API's monitoring window (24 h) and an hour for a transaction
 * broadcast at its end to confirm (INTERFACE.md 8: "up to 1 hour"); a burst no shop's checkout makes.
 */
export const DEFAULT_ISSUING_RULES: IssuingRules = { gapLimit: GAP_LIMIT, reuseGraceMs: 25 * HOUR, perWalletPerMinute: 60, perIpPerMinute: 120 };

/** The rate limits one order address counts against (those set to 0 are off). */
export function issueLimits(rules: IssuingRules, walletId: bigint, ip: string | null): Limit[] {
  const limits: Limit[] = [];
  if (rules.perWalletPerMinute > 0) {
    const max = rules.perWalletPerMinute;
    limits.push({ key: `issue:wallet:${walletId}`, max, windowMs: MINUTE, describe: `${max} new addresses a minute for one wallet` });
  }
  if (ip !== null && rules.perIpPerMinute > 0) {
    const max = rules.perIpPerMinute;
    limits.push({ key: `issue:ip:${ip}`, max, windowMs: MINUTE, describe: `${max} new addresses a minute from one IP address` });
  }
  return limits;
}

/** A duration as people say it: whole hours, minutes or seconds. */
function spoken(ms: number): string {
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  return `${Math.ceil(ms / 1000)} s`;
}

/**
 * No free address within the wallet's gap limit: every address after its last used one, up to the limit, is issued
 * and unpaid. Code 201 (HTTP 400 as DESIGN.md 7 maps it); the status says when room comes back, if it will by itself.
 */
export class GapLimitError extends DomainError {
  constructor(rules: Pick<IssuingRules, 'gapLimit' | 'reuseGraceMs'>, lastUsed: number, freesAt: number | null) {
    const gap = rules.gapLimit;
    const window = lastUsed < 0 ? `its first ${gap} addresses are` : `the ${gap} addresses after its last used one (index ${lastUsed}) are`;
    const when = freesAt === null ? 'One frees only when a payment arrives.' : `The next one frees at ${isoUtc(freesAt)}, or sooner if a payment arrives.`;
    super(
      'invalid',
      `Wrong or missing argument: no address can be reserved within the wallet's gap limit of ${gap}: ${window} all unpaid and ` +
        `reserved by open orders, kept back for ${spoken(rules.reuseGraceMs)} after their order expired, or issued for payment ` +
        `requests (a wallet would not see a payment further out). ${when}`,
    );
  }
}
