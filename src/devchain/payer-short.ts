// Its own module, without bcoin: the development routes import it at run time, and bcoin is a development dependency.
import { btcFromSats } from '../money/money.ts';

/** The built-in payer cannot pay: says how much it has, how much is needed, and what to do about it. */
export class PayerShortError extends Error {
  constructor(
    readonly spendableSats: bigint,
    readonly neededSats: bigint,
  ) {
    super(
      `the built-in payer has ${btcFromSats(spendableSats)} BTC spendable, needs ${btcFromSats(neededSats)} BTC (amount and fee): ` +
        'pay less, or mine blocks ("satgate dev mine 100") so that more of its coinbase outputs mature',
    );
    this.name = 'PayerShortError';
  }
}
