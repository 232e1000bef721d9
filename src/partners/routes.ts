// Partner operations (INTERFACE.md 4.1, DESIGN.md sections 7 and 9): create a merchant wallet, read its
// status, upload KYC documents. Answers use the `result`/`status` envelope; keys are checked by the hooks.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { okResult } from '../http/envelope.ts';
import { fieldsOf, requestFields } from '../http/request-fields.ts';
import { callerOf, merchantKeyAuth, partnerKeyAuth } from '../http/partner-auth.ts';
import { onlyKnown } from './fields.ts';
import type { PartnerKeys, PartnerRow } from './partner-keys.ts';
import type { PartnerMerchant, PartnerWallets } from './partner-wallets.ts';
import type { Kyc } from './kyc.ts';

/** What the partner routes need. */
export interface PartnerRoutesContext {
  keys: PartnerKeys;
  wallets: PartnerWallets;
  kyc: Kyc;
}

/** JSON bodies: 1 MiB, as everywhere (DESIGN.md section 7). */
const BODY_LIMIT = 1024 * 1024;
/** A KYC upload: 10 MiB decoded is about 13.4 MiB of base64, plus the other fields. */
export const KYC_BODY_LIMIT = 14 * 1024 * 1024 + 512 * 1024;

const TAGS = ['partners'];
const Result = { result: Type.String(), status: Type.String() };
const config = { errorFormat: 'result' as const };
const noValidation = { validatorCompiler: () => () => true };

const CreateBody = Type.Object({
  partner_auth_key: Type.String({ description: 'the partner key (or send it in Authorization)' }),
  merchant_name: Type.String({ maxLength: 200 }),
  partner_merchant_id: Type.String({ maxLength: 128, description: "the partner's own ID for the merchant; creating again with it answers the same wallet" }),
  contact: Type.Object({ email: Type.String(), phone: Type.String({ description: 'E.164, e.g. +4930123456' }) }, { additionalProperties: true }),
  bank_info: Type.Object({}, { additionalProperties: true }),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  local_currency: Type.Optional(Type.String({ description: 'ISO code, any case; default USD' })),
});
const MerchantQuery = Type.Object({
  partner_auth_key: Type.Optional(Type.String()),
  merchant_api_id: Type.String(),
  merchant_auth_key: Type.String(),
});
const KycBody = Type.Object({
  partner_auth_key: Type.String(),
  merchant_api_id: Type.String(),
  merchant_auth_key: Type.String(),
  doc_id: Type.String({ maxLength: 64, description: 'unique per wallet: A-Z a-z 0-9 . _ -' }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  base64: Type.String({ description: 'data:application/pdf|image/png|image/jpeg;base64,… (10 MiB decoded at most)' }),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

/** Registers POST/GET /partner_merchant_wallet and POST /partner_merchant_kyc. */
export async function partnerRoutes(app: FastifyInstance, ctx: PartnerRoutesContext): Promise<void> {
  const fields = requestFields(BODY_LIMIT);
  const partnerAuth = partnerKeyAuth((key) => ctx.keys.authenticate(key));
  const merchantAuth = merchantKeyAuth({ idField: 'merchant_api_id', keyField: 'merchant_auth_key' }, (id, key, partner) =>
    ctx.wallets.authenticate(id, key, 'merchant', partner as PartnerRow),
  );

  app.post(
    '/partner_merchant_wallet',
    {
      schema: {
        summary: 'Create a service-held wallet for a merchant of the partner (idempotent on partner_merchant_id)',
        tags: TAGS,
        body: CreateBody,
        response: {
          200: Type.Object({
            ...Result,
            partner_merchant_id: Type.String(),
            merchant_api_id: Type.String(),
            merchant_auth_key: Type.String({ description: 'shown once; empty when the wallet already existed' }),
            withdrawal_auth_key: Type.String({ description: 'shown once; empty when the wallet already existed' }),
            wallet_status: Type.String(),
          }),
        },
      },
      ...noValidation,
      config,
      preValidation: [fields, partnerAuth],
    },
    async (request) => {
      const created = await ctx.wallets.create(callerOf<PartnerRow>(request, 'partner'), fieldsOf(request).values);
      const { created: isNew, ...answer } = created;
      const note = isNew ? 'OK' : 'OK: this partner_merchant_id already has a wallet; its keys were shown when it was created and are not shown again';
      return { ...okResult(answer), status: note };
    },
  );

  app.get(
    '/partner_merchant_wallet',
    {
      schema: {
        summary: "A partner merchant wallet's status; fields in a JSON body or the query string",
        tags: TAGS,
        querystring: MerchantQuery,
        response: {
          200: Type.Object({ ...Result, partner_merchant_id: Type.String(), merchant_api_id: Type.String(), wallet_status: Type.String() }),
        },
      },
      ...noValidation,
      config,
      preValidation: [fields, partnerAuth, merchantAuth],
    },
    async (request) => {
      onlyKnown(fieldsOf(request).values, ['partner_auth_key', 'merchant_api_id', 'merchant_auth_key']);
      const m = callerOf<PartnerMerchant>(request, 'merchant');
      return okResult({ partner_merchant_id: m.pw.partner_merchant_id, merchant_api_id: m.wallet.api_id, wallet_status: m.pw.wallet_status });
    },
  );

  app.post(
    '/partner_merchant_kyc',
    {
      bodyLimit: KYC_BODY_LIMIT,
      schema: {
        summary: 'Upload one KYC document (PDF, PNG or JPEG as a data URL) for a partner merchant wallet',
        tags: TAGS,
        body: KycBody,
        response: { 200: Type.Object({ ...Result, merchant_api_id: Type.String(), doc_id: Type.String() }) },
      },
      ...noValidation,
      config,
      preValidation: [requestFields(KYC_BODY_LIMIT), partnerAuth, merchantAuth],
    },
    async (request) => okResult(await ctx.kyc.upload(callerOf<PartnerMerchant>(request, 'merchant'), fieldsOf(request).values)),
  );
}
