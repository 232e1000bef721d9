// The console's Payouts page over the Greenfield payout PSBT flow: the same service as GET …/payouts/psbt and
// POST …/payouts/signed, its refusals (Greenfield's 400 `{code, message}`) turned into the DomainErrors the console
// shows as a page. Here because the console may not import greenfield/ (greenfield's authorize page uses the console's
// security helpers).
import { DomainError } from '../core/domain-errors.ts';
import { GreenfieldError } from '../greenfield/errors.ts';
import type { GreenfieldPayoutPsbts } from '../greenfield/payout-psbt.ts';
import type { ConsolePayouts } from '../console/payout-pages.ts';

async function refusedAsDomain<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GreenfieldError && err.status === 400) throw new DomainError('invalid', err.message);
    throw err;
  }
}

/** The console's view of the payout PSBTs. */
export function consolePayouts(psbts: Pick<GreenfieldPayoutPsbts, 'due' | 'psbt' | 'submit'>): ConsolePayouts {
  return {
    due: (walletId) => psbts.due(walletId),
    psbt: async (walletId) => (await refusedAsDomain(() => psbts.psbt(walletId))).psbt as string,
    submit: async (walletId, signed) => {
      await refusedAsDomain(() => psbts.submit(walletId, signed));
    },
  };
}
