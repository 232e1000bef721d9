import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ok } from '../http/envelope.ts';
import { EnvelopeFields as Envelope } from '../http/schemas.ts';
import { issueOrderAddress, type OrderAddressDeps } from './order-address.ts';
import type { WalletMonitor } from './wallet-monitor.ts';


const SetAddrBody = Type.Object({
  api_id: Type.String({ minLength: 1, maxLength: 100 }),
  public_key_shared: Type.Optional(Type.String({ maxLength: 200 })),
  payload: Type.Optional(Type.String({ maxLength: 100_000 })),
  return_email: Type.Optional(Type.String({ maxLength: 254 })),
  expiration: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400, description: 'seconds; default 7200' })),
  local_currency: Type.Optional(Type.String({ maxLength: 16 })),
  client_txid: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

const AddressParam = Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) });

/** What the order-address and monitoring routes need from the context. */
export interface MonitorRoutesContext {
  orderAddresses: OrderAddressDeps;
  monitor: Pick<WalletMonitor, 'balance' | 'unspent'>;
}

/** Wallet API operations 8, 9 and 10: order addresses and what the chain shows for them. */
export async function monitorRoutes(app: FastifyInstance, ctx: MonitorRoutesContext): Promise<void> {
  app.post<{ Body: Static<typeof SetAddrBody> }>(
    '/set_addr',
    {
      schema: {
        summary: 'Reserve a receiving address for an order and lock the rate for 15 minutes',
        tags: ['wallet API'],
        body: SetAddrBody,
        response: {
          200: Type.Object({
            ...Envelope,
            addr: Type.String(),
            exchange_rate: Type.Number(),
            exchange_rate_datetime: Type.String(),
            local_currency: Type.String(),
            auth_response_token: Type.String({ description: 'compare with response_auth_token of the payment update notifications' }),
          }),
        },
      },
    },
    async (request) => ok(await issueOrderAddress(ctx.orderAddresses, request.body, { ip: request.ip })),
  );

  app.get<{ Params: Static<typeof AddressParam> }>(
    '/balance/:address',
    {
      schema: {
        summary: 'Balance, transactions and the sealed order result of an issued address',
        tags: ['wallet API'],
        params: AddressParam,
      },
    },
    async (request) => ok(await ctx.monitor.balance(request.params.address)),
  );

  app.get<{ Params: Static<typeof AddressParam> }>(
    '/unspent/:address',
    {
      schema: {
        summary: 'Unspent outputs of an issued address',
        tags: ['wallet API'],
        params: AddressParam,
        response: {
          200: Type.Object({
            ...Envelope,
            unspent: Type.Array(
              Type.Object({ tx_pos: Type.Integer(), value: Type.Integer(), tx_hash: Type.String(), height: Type.Integer() }),
            ),
          }),
        },
      },
    },
    async (request) => ok({ unspent: await ctx.monitor.unspent(request.params.address) }),
  );
  // GET /tx/:value (op 5 without a token, op 23 with one) is served by dashboard/routes.ts.
}
