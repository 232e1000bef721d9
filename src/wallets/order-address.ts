import { DomainError } from '../core/domain-errors.ts';
import { isoUtc, type Clock } from '../core/clock.ts';
import { jsonNumber } from '../money/json-number.ts';
import type { Db } from '../db/database.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import type { MasterKey } from '../security/master-key.ts';
import { isDecimal } from '../money/decimal.ts';
import { fiatToSats } from '../money/money.ts';
import { amountRangeProblem, satsRangeProblem } from '../money/amount-bounds.ts';
import { checkClientPublicKey, openClientPayload, PayloadError } from './payload-box.ts';
import type { AddressIssuer } from './address-issuer.ts';
import type { WalletRepository } from './wallet-repository.ts';
import { checkLocalCurrency, isEmail } from './field-rules.ts';
import type { CurrencyCatalog } from '../rates/currency-catalog.ts';
import { newToken } from '../security/tokens.ts';
import { recordTransition } from '../notify/status-transition.ts';

/** The fields of POST /set_addr (INTERFACE.md 4.1). */
export interface SetAddrInput {
  api_id: string;
  public_key_shared?: string;
  payload?: string;
  return_email?: string;
  expiration?: number;
  local_currency?: string;
  client_txid?: string;
}

/** What set_addr answers. */
export interface SetAddrResult {
  addr: string;
  exchange_rate: number;
  exchange_rate_datetime: string;
  local_currency: string;
  /** Compare with the `response_auth_token` of this order's payment update notifications (6.2, 6.3). */
  auth_response_token: string;
}

/** Default reservation of an unused address, seconds (INTERFACE.md 8). */
export const DEFAULT_EXPIRATION_SECONDS = 7200;

/** What issuing an order address needs. */
export interface OrderAddressDeps {
  db: Db;
  repo: WalletRepository;
  issuer: AddressIssuer;
  rates: Rates;
  chains: ChainService;
  masterKey: MasterKey;
  clock: Clock;
  /** Which local currencies have a current rate (BTC is never one). */
  currencies: Pick<CurrencyCatalog, 'isSupported'>;
}

/**
 * Operation 8: reserves the lowest free address for an order, locks the rate for 15 minutes, stores the order.
 * A call without a login: `caller.ip` counts against the issuing rate limits (issuing-rules.ts).
 */
export async function issueOrderAddress(deps: OrderAddressDeps, input: SetAddrInput, caller: { ip: string | null }): Promise<SetAddrResult> {
  // No trimming: " live_…" is not an API ID.
  const isSupported = (code: string) => deps.currencies.isSupported(code);
  const wallet = await deps.repo.findByApiId(input.api_id);
  if (!wallet) throw new DomainError('invalid', 'Wrong or missing argument: unknown api_id');
  const chain = deps.chains.forMode(wallet.mode as ChainId);
  if (input.return_email !== undefined && !isEmail(input.return_email)) {
    throw new DomainError('invalid-email', 'Invalid e-mail address: return_email');
  }
  if (input.local_currency !== undefined) checkLocalCurrency(input.local_currency, isSupported);
  const order = openPayload(deps, wallet, input);
  const currency = checkLocalCurrency(input.local_currency ?? order?.local_currency ?? wallet.local_currency, isSupported);
  const expirationSec = input.expiration ?? DEFAULT_EXPIRATION_SECONDS;

  const now = deps.clock();
  const authToken = newToken(24);
  // A light server is asked about an expired address before it is reused, outside the transaction.
  const reuse = await deps.issuer.vetOrderReuse(deps.db.kysely, wallet, now);
  const { address, lock } = await deps.db.kysely.transaction().execute(async (trx) => {
    const lock = await deps.rates.lock('address', currency, trx);
    // Priced before an address is reserved: an order worth more than all the bitcoin there is, is refused.
    const range = order?.order_amount ? satsRangeProblem(fiatToSats(order.order_amount, lock.rate)) : null;
    if (range !== null) throw new DomainError('invalid', `Wrong or missing argument: payload order_amount ${range}`);
    const address = await deps.issuer.reserveForOrder(trx, wallet, { now, until: now + expirationSec * 1000, reuse, ip: caller.ip });
    const stored = await trx
      .insertInto('address_orders')
      .values({
        address_id: address.id,
        wallet_id: wallet.id,
        client_txid: input.client_txid ?? null,
        return_email: input.return_email ?? null,
        local_currency: currency.toLowerCase(),
        order_amount: order?.order_amount ?? null,
        exchange_rate: lock.rate,
        exchange_rate_at: BigInt(lock.rateAt),
        rate_lock_expires_at: BigInt(lock.expiresAt),
        client_public_key: input.public_key_shared ?? null,
        payload_json: order ? JSON.stringify(order) : null,
        created_at: BigInt(now),
        reserved_until: BigInt(now + expirationSec * 1000),
        order_status: 'pending',
        payment_status: 'unconfirmed',
        status_at: BigInt(now),
        tx_snapshot_json: '{}',
        auth_token_sealed: deps.masterKey.seal(authToken),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordTransition(trx, { table: 'address_order_transitions', recordId: stored.id, from: null, to: 'pending', cause: 'created', at: now }, []);
    return { address, lock };
  });
  deps.chains.watch(chain.id, Buffer.from(address.script_hex, 'hex'), { addressId: address.id, walletId: wallet.id });
  return {
    addr: address.address,
    exchange_rate: jsonNumber(lock.rate),
    exchange_rate_datetime: isoUtc(lock.rateAt),
    local_currency: currency.toLowerCase(),
    auth_response_token: authToken,
  };
}

/** The decrypted order payload (2.4), validated; undefined when none was sent. */
function openPayload(
  deps: OrderAddressDeps,
  wallet: { api_id: string; box_secret_sealed: string },
  input: SetAddrInput,
): { api_id?: string; local_currency?: string; order_amount?: string } | undefined {
  // A client key, with or without an order, is what the balance result is sealed to: it must be one.
  if (input.public_key_shared !== undefined) {
    try {
      checkClientPublicKey(input.public_key_shared, deps.masterKey.unseal(wallet.box_secret_sealed));
    } catch (err) {
      if (err instanceof PayloadError) throw new DomainError('invalid', `Wrong or missing argument: ${err.message}`);
      throw err;
    }
  }
  if (input.payload === undefined) return undefined;
  // An empty string is not a sealed order: a client without an order leaves the field out.
  if (input.payload === '') throw new DomainError('invalid', 'Wrong or missing argument: payload is empty (leave it out when there is no order)');
  if (input.public_key_shared === undefined) {
    throw new DomainError('invalid', 'Wrong or missing argument: payload needs public_key_shared (the client public key)');
  }
  let content: Record<string, unknown>;
  try {
    content = openClientPayload(input.payload, input.public_key_shared, deps.masterKey.unseal(wallet.box_secret_sealed));
  } catch (err) {
    if (err instanceof PayloadError) throw new DomainError('invalid', `Wrong or missing argument: payload ${err.message}`);
    throw err;
  }
  // Every field of INTERFACE.md 2.4, each a string: a payload without the amount is not an order.
  for (const field of ['api_id', 'local_currency', 'order_amount'] as const) {
    if (typeof content[field] !== 'string') {
      throw new DomainError('invalid', `Wrong or missing argument: payload ${field} is required and must be a string`);
    }
  }
  const extra = Object.keys(content).filter((k) => !['api_id', 'local_currency', 'order_amount'].includes(k));
  if (extra.length > 0) throw new DomainError('invalid', `Wrong or missing argument: payload has unknown field(s) ${extra.join(', ')}`);
  if (content.api_id !== wallet.api_id) throw new DomainError('invalid', 'Wrong or missing argument: payload api_id does not match');
  const localCurrency = content.local_currency as string;
  checkLocalCurrency(localCurrency, (code) => deps.currencies.isSupported(code), 'payload local_currency');
  const amount = content.order_amount as string;
  if (!isDecimal(amount) || /^0*(\.0*)?$/.test(amount)) {
    throw new DomainError('invalid', 'Wrong or missing argument: payload order_amount must be a positive decimal amount');
  }
  const range = amountRangeProblem(amount, localCurrency);
  if (range !== null) throw new DomainError('invalid', `Wrong or missing argument: payload order_amount ${range}`);
  const out = { api_id: wallet.api_id, local_currency: localCurrency, order_amount: amount };
  return out;
}
