// The watch-only payout PSBT routes (satgate's addition; payout-psbt.ts), registered inside the store's payout
// routes (payout-routes.ts) behind the Greenfield key. `psbt` and `signed` are never payout ids (those are random).
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { requireStorePermission } from './auth.ts';
import { POLICIES } from './permissions.ts';
import type { GreenfieldPayoutPsbts } from './payout-psbt.ts';

const TAGS = ['Greenfield'];
const SECURITY = [{ greenfieldToken: [] }];
const Text = Type.String({ minLength: 1, maxLength: 400_000 });

const PsbtData = Type.Object(
  {
    psbt: Type.String({ description: 'unsigned PSBT, base64' }),
    fee: Type.String({ description: 'BTC' }),
    feeRate: Type.Number({ description: 'sat/vB' }),
    payouts: Type.Array(Type.Object({ id: Type.String(), destination: Type.String(), amount: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
const SignedBody = Type.Object(
  {
    psbt: Type.Optional(Type.Union([Text, Type.Array(Text, { minItems: 1, maxItems: 20 })], { description: "signed PSBT (base64 or hex), or the cosigners' partially signed PSBTs" })),
    transaction: Type.Optional(Type.String({ minLength: 1, maxLength: 400_000, description: 'signed raw transaction, hex' })),
  },
  { additionalProperties: false },
);
const SignedData = Type.Object({ transactionId: Type.String(), fee: Type.String(), payouts: Type.Array(Type.String()) }, { additionalProperties: false });

export function payoutPsbtRoutes(app: FastifyInstance, psbts: GreenfieldPayoutPsbts): void {
  const storeParams = Type.Object({ storeId: Type.String({ minLength: 1, maxLength: 200 }) });

  app.get<{ Params: Static<typeof storeParams> }>(
    '/api/v1/stores/:storeId/payouts/psbt',
    {
      schema: {
        summary: 'Watch-only wallets: the unsigned PSBT paying every approved payout not yet paid (satgate)',
        tags: TAGS,
        security: SECURITY,
        params: storeParams,
        response: { 200: PsbtData },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.managePullPayments);
      return psbts.psbt(who.walletId);
    },
  );

  app.post<{ Params: Static<typeof storeParams>; Body: Static<typeof SignedBody> }>(
    '/api/v1/stores/:storeId/payouts/signed',
    {
      schema: {
        summary: 'Watch-only wallets: post the signed payout transaction; checked, stored, then broadcast (payouts InProgress, Completed once confirmed) (satgate)',
        tags: TAGS,
        security: SECURITY,
        params: storeParams,
        body: SignedBody,
        response: { 200: SignedData },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.managePullPayments);
      return psbts.submit(who.walletId, request.body.psbt ?? request.body.transaction);
    },
  );
}
