import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { parseExtendedPublicKey, InvalidExtendedKeyError } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';
import { WalletApiError } from '../core/errors.ts';
import { ok } from '../http/envelope.ts';
import { EnvelopeFields as Envelope } from '../http/schemas.ts';
import { monitorRoutes, type MonitorRoutesContext } from './monitor-routes.ts';
import type { Wallets } from './wallets.ts';
import { WALLET_CATALOGUE } from './catalogue.ts';
import { registerWallet } from './wallet-registration.ts';


const AddPubBody = Type.Object({
  pub: Type.String({ minLength: 1, maxLength: 200, description: 'extended public key, or "new_wallet"' }),
  currency: Type.Optional(Type.String({ maxLength: 16 })),
  local_currency: Type.Optional(Type.String({ maxLength: 16 })),
  info: Type.Optional(Type.String({ maxLength: 10_000 })),
  wallet_type: Type.Optional(Type.Integer({ description: '1 legacy, 2 p2sh-segwit, 3 native segwit' })),
  notification_email: Type.Optional(Type.String({ maxLength: 254 })),
  return_url: Type.Optional(Type.String({ maxLength: 2048 })),
  account_name: Type.Optional(Type.String({ maxLength: 200 })),
  account_type: Type.Optional(Type.String({ maxLength: 32 })),
}, { additionalProperties: false });

const AddrInfoBody = Type.Object({
  address: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  addr: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  info: Type.String({ maxLength: 10_000 }),
}, { additionalProperties: false });

/** What the wallet routes need: the capability's services. */
export type WalletRoutesContext = Pick<Wallets, 'registration' | 'notes'> & MonitorRoutesContext;

/** The wallet API's route plugin: operations 1, 2, 4, 11 and 12 here, 5 and 8 to 10 in monitor-routes.ts. */
export async function walletRoutes(app: FastifyInstance, ctx: WalletRoutesContext): Promise<void> {
  app.get(
    '/wallets',
    {
      schema: {
        summary: 'Supported wallets (op 1)',
        tags: ['wallet API'],
        response: {
          200: Type.Object({
            ...Envelope,
            wallets: Type.Array(
              Type.Object({ type: Type.String(), name: Type.String(), description: Type.String(), url: Type.String() }),
            ),
          }),
        },
      },
    },
    async () => ok({ wallets: WALLET_CATALOGUE }),
  );

  app.get<{ Params: { pub: string } }>(
    '/wallet_type/:pub',
    {
      schema: {
        summary: 'First address of a key (op 2)',
        tags: ['wallet API'],
        params: Type.Object({ pub: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.Object({ ...Envelope, addr: Type.String() }) },
      },
    },
    async (request) => {
      try {
        if (request.params.pub !== request.params.pub.trim()) throw new WalletApiError('102', 'Public key is not valid: it has leading or trailing whitespace');
        const key = parseExtendedPublicKey(request.params.pub);
        const network = key.testnet ? ctx.registration.testNetwork : 'mainnet';
        return ok({ addr: deriveReceiveAddress(key, 0, key.defaultScriptType, network).address });
      } catch (err) {
        if (err instanceof InvalidExtendedKeyError) throw new WalletApiError('102', `Public key is not valid: ${err.message}`);
        throw err;
      }
    },
  );

  app.post<{ Body: Static<typeof AddPubBody> }>(
    '/add_pub',
    {
      schema: {
        summary: 'Register a public key, or generate a wallet with pub = "new_wallet" (op 4)',
        tags: ['wallet API'],
        body: AddPubBody,
        response: {
          200: Type.Object({
            ...Envelope,
            api_id: Type.String(),
            server_public_key: Type.String(),
            server_sign_public_key: Type.String(),
          }),
        },
      },
    },
    async (request) => ok(await registerWallet(ctx.registration, request.body)),
  );

  app.get<{ Params: { address: string } }>(
    '/addr_info/:address',
    {
      schema: {
        summary: 'Notes attached to an issued address (op 11)',
        tags: ['wallet API'],
        params: Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({ ...Envelope, info: Type.Array(Type.Object({ info: Type.String(), dbtime: Type.String() })) }),
        },
      },
    },
    async (request) => ok({ info: await ctx.notes.list(request.params.address) }),
  );

  app.post<{ Body: Static<typeof AddrInfoBody> }>(
    '/addr_info',
    {
      schema: {
        summary: 'Attach a note to an issued address (op 12); the address goes in `address` or `addr`',
        tags: ['wallet API'],
        body: AddrInfoBody,
        response: { 200: Type.Object(Envelope) },
      },
    },
    async (request) => {
      const address = request.body.address ?? request.body.addr;
      if (!address) throw new WalletApiError('201', 'Wrong or missing argument: address (or addr) is required');
      await ctx.notes.add(address, request.body.info);
      return ok();
    },
  );

  await monitorRoutes(app, ctx);
}
