/** Why a spend cannot be made; domain errors the routes and the CLI turn into their own answers. */
export { InsufficientFundsError } from './coin-selection.ts';
export { WatchOnlyWalletError } from './wallet-signer.ts';

/** A request the spending core refuses (bad address, dust amount, unknown spend, impossible bump). */
export class SpendRefusedError extends Error {
  override name = 'SpendRefusedError';
}
