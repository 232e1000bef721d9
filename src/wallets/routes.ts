import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { parseExtendedPublicKey, InvalidExtendedKeyError } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';
import { parseDescriptor } from '../bitcoin/descriptors/parse.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { DomainError } from '../core/domain-errors.ts';
import { ok } from '../http/envelope.ts';
import { EnvelopeFields as Envelope } from '../http/schemas.ts';
import { monitorRoutes, type MonitorRoutesContext } from './monitor-routes.ts';
import type { Wallets } from './wallets.ts';
import { WALLET_CATALOGUE } from './catalogue.ts';
import { registerWallet } from './wallet-registration.ts';
import { canonicalOfWalletText } from './wallet-lookup.ts';


/** Longest wallet text taken (a descriptor's own limit): a 20-key multisig descriptor with origins is about 3,500 characters. */
const WALLET_TEXT_MAX = 10_000;

const AddPubBody = Type.Object({
  pub: Type.String({
    minLength: 1,
    maxLength: WALLET_TEXT_MAX,
    description: 'extended public key, output descriptor, BTCPay derivation scheme or m-of- multisig cosigner list, or "new_wallet"',
  }),
  currency: Type.Optional(Type.String({ maxLength: 16 })),
  local_currency: Type.Optional(Type.String({ maxLength: 16 })),
  info: Type.Optional(Type.String({ maxLength: 10_000 })),
  wallet_type: Type.Optional(Type.Integer({ description: '1 legacy, 2 p2sh-segwit, 3 native segwit; 4 taproot (with "pub": "new_wallet", a service-held BIP86 wallet)' })),
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
        summary: 'Supported wallets',
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
        summary: 'First address of a key',
        tags: ['wallet API'],
        params: Type.Object({ pub: Type.String({ minLength: 1, maxLength: WALLET_TEXT_MAX, description: 'an extended public key, or a descriptor-like form percent-encoded' }) }),
        response: { 200: Type.Object({ ...Envelope, addr: Type.String() }) },
      },
    },
    async (request) => {
      const text = request.params.pub;
      try {
        if (text !== text.trim()) throw new DomainError('invalid-key', 'Public key is not valid: it has leading or trailing whitespace');
        const canonical = canonicalOfWalletText(text);
        if (canonical !== undefined) {
          const network = parseDescriptor(canonical).testnet ? ctx.registration.testNetwork : 'mainnet';
          return ok({ addr: keyOf({ descriptor: canonical }, network).receive(0).address });
        }
        const key = parseExtendedPublicKey(text);
        const network = key.testnet ? ctx.registration.testNetwork : 'mainnet';
        return ok({ addr: deriveReceiveAddress(key, 0, key.defaultScriptType, network).address });
      } catch (err) {
        if (err instanceof InvalidExtendedKeyError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
        throw err;
      }
    },
  );

  app.post<{ Body: Static<typeof AddPubBody> }>(
    '/add_pub',
    {
      schema: {
        summary:
          'Register a public key, or generate a wallet with pub = "new_wallet"; again on a registered key it updates local currency, notification e-mail and account name (mailed to the previous address), never return_url',
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
    async (request) => ok(await registerWallet(ctx.registration, request.body, { ip: request.ip })),
  );

  app.get<{ Params: { address: string } }>(
    '/addr_info/:address',
    {
      schema: {
        summary: 'Notes attached to an issued address',
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
        summary: 'Attach a note to an issued address; the address goes in `address` or `addr`',
        tags: ['wallet API'],
        body: AddrInfoBody,
        response: { 200: Type.Object(Envelope) },
      },
    },
    async (request) => {
      const address = request.body.address ?? request.body.addr;
      if (!address) throw new DomainError('invalid', 'Wrong or missing argument: address (or addr) is required');
      await ctx.notes.add(address, request.body.info);
      return ok();
    },
  );

  await monitorRoutes(app, ctx);
}
