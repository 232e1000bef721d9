import { DomainError } from '../core/domain-errors.ts';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { isoUtc, type Clock } from '../core/clock.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import { ok } from '../http/envelope.ts';
import { EnvelopeFields as Envelope } from '../http/schemas.ts';
import { isCurrencyCode, isIso4217 } from '../money/currencies.ts';
import { compareDecimals, isDecimal } from '../money/decimal.ts';
import { ConversionError, convertAmount } from '../money/money.ts';
import type { CurrencyCatalog } from './currency-catalog.ts';
import { parseHistoryDate, type RateHistory } from './rate-history.ts';
import type { Rates } from './rates-port.ts';

const Code = Type.String({ minLength: 1, maxLength: 16, description: 'BTC or an ISO 4217 code, any case' });

/** What the rate routes need from the context. */
export interface RateRoutesContext {
  clock: Clock;
  currencies: CurrencyCatalog;
  rates: Pick<Rates, 'spot'>;
  rateHistory: Pick<RateHistory, 'onDay'>;
}

/** Wallet API operations 3, 6 and 7: the live currency list, conversion at the current rate, and rates of a past day. */
export async function rateRoutes(app: FastifyInstance, ctx: RateRoutesContext): Promise<void> {
  app.get(
    '/currencies',
    {
      schema: {
        summary: 'Currencies with a current exchange rate',
        tags: ['wallet API'],
        response: { 200: Type.Object({ ...Envelope, resp: Type.Array(Type.String()) }) },
      },
    },
    async () => {
      const resp = ctx.currencies.list();
      if (resp.length === 0) {
        throw new ServiceUnavailableError('No current exchange rates are available, so no currency can be priced right now (see /health)');
      }
      return ok({ resp });
    },
  );

  app.get<{ Params: { from: string; to: string; amount: string } }>(
    '/exchange/:from/:to/:amount',
    {
      schema: {
        summary: 'Convert an amount at the current rate; fiat to fiat goes through BTC',
        description:
          'The answer `amount` is an exact decimal string: BTC with up to 8 decimals (rounded up to the satoshi), ' +
          "fiat with the currency's minor-unit decimals (rounded half-up).",
        tags: ['wallet API'],
        params: Type.Object({ from: Code, to: Code, amount: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Object({ ...Envelope, amount: Type.String() }) },
      },
    },
    async (request) => {
      const from = checkCode(request.params.from, 'unsupported-currency');
      const to = checkCode(request.params.to, 'unsupported-currency');
      const amount = request.params.amount;
      if (!isDecimal(amount, { maxIntegerDigits: 24, maxFractionDigits: 18 }) || compareDecimals(amount, '0') === 0) {
        throw new DomainError('invalid', `Wrong or missing argument: amount ${JSON.stringify(request.params.amount)} must be a positive decimal such as 100 or 0.5`);
      }
      const prices = new Map<string, string>();
      for (const code of new Set([from, to])) {
        if (code !== 'BTC') prices.set(code, (await ctx.rates.spot(code)).rate);
      }
      return ok({ amount: convert(amount, from, to, prices, 'unsupported-currency') });
    },
  );

  app.get<{ Params: { from: string; to: string; date: string } }>(
    '/exchange_history/:from/:to/:date',
    {
      schema: {
        summary: 'Value of 1 unit of `from` in `to` on a past day, mm-dd-yyyy',
        description:
          'Uses the stored rate record nearest to noon UTC of that day; a day we hold nothing for is asked of the ' +
          'providers that keep history and stored. `amount` is an exact decimal string as in GET /exchange/{from}/{to}/{amount}.',
        tags: ['wallet API'],
        params: Type.Object({ from: Code, to: Code, date: Type.String({ maxLength: 32 }) }),
        response: { 200: Type.Object({ ...Envelope, amount: Type.String(), exchange_rate_datetime: Type.String() }) },
      },
    },
    async (request) => {
      const from = checkCode(request.params.from, 'history-out-of-range');
      const to = checkCode(request.params.to, 'history-out-of-range');
      const dayStart = parseHistoryDate(request.params.date, ctx.clock());
      const record = await ctx.rateHistory.onDay(dayStart);
      return ok({ amount: convert('1', from, to, record.rates, 'history-out-of-range'), exchange_rate_datetime: isoUtc(record.at) });
    },
  );
}

/** How an unknown currency is refused: not priced now (103), or not in the stored history (106). */
type Unsupported = 'unsupported-currency' | 'history-out-of-range';

/** A currency of the exchange operations: malformed (not three letters, e.g. `123`, `u$d`) is 101, unknown 103/106. */
function checkCode(code: string, unsupported: Unsupported): string {
  if (!isCurrencyCode(code)) throw new DomainError('invalid-currency', `Currency is not valid: ${JSON.stringify(code)} is not a three-letter code`);
  const upper = code.toUpperCase();
  if (upper !== 'BTC' && !isIso4217(upper)) {
    throw new DomainError(unsupported, `Currency is not supported: ${JSON.stringify(code)} is not a currency code`);
  }
  return upper;
}

function convert(amount: string, from: string, to: string, prices: ReadonlyMap<string, string>, unsupported: Unsupported): string {
  try {
    return convertAmount(amount, from, to, (code) => prices.get(code));
  } catch (err) {
    if (err instanceof ConversionError) {
      if (err.kind === 'bad-amount') throw new DomainError('invalid', `Wrong or missing argument: ${err.message}`);
      throw new DomainError(unsupported, `Currency is not supported: ${err.message}`);
    }
    throw err;
  }
}
