// The spot rate of funds first seen after their rate lock ran out, as payments and payment forms value them. It is
// asked inside a chain transaction, so it has a time limit: a slow or failing rate source never holds up the chain.
import type { Logger } from 'pino';
import type { Rates, SpotRate } from './rates-port.ts';

/** How long a spot-rate lookup inside a chain transaction may take before the locked rate is used. */
export const SPOT_TIMEOUT_MS = 2_000;

/**
 * The spot rate now, or undefined when none comes in time (rates stale or down, logged as a warning): the caller
 * then values the funds at the locked rate.
 */
export async function spotAtFirstSight(rates: Pick<Rates, 'spot'>, log: Pick<Logger, 'warn'>, currency: string): Promise<SpotRate | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      rates.spot(currency),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), SPOT_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    log.warn({ currency, err: err instanceof Error ? err.message : String(err) }, 'no spot rate for late funds; valued at the locked rate');
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
