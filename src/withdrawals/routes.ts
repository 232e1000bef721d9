// Withdrawal operations 15 to 17 (INTERFACE.md 4.1): quote, confirm, status. GET ones take their fields
// from a JSON body or the query string; `POST /withdrawal` with only `withdrawal_id` is a status read.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../core/domain-errors.ts';
import { okResult } from '../http/envelope.ts';
import { fieldsOf, parseExactFields, requestFields } from '../http/request-fields.ts';
import { callerOf, merchantKeyAuth } from '../http/partner-auth.ts';
import { onlyKnown, requiredString } from '../partners/fields.ts';
import type { PartnerMerchant, PartnerWallets } from '../partners/partner-wallets.ts';
import type { Withdrawals, WithdrawalRow } from './withdrawals.ts';

/** What the withdrawal routes need. */
export interface WithdrawalRoutesContext {
  wallets: PartnerWallets;
  withdrawals: Withdrawals;
  /** Called after a withdrawal is confirmed, so the sender need not wait for its next round. */
  onConfirmed(): void;
}

const BODY_LIMIT = 1024 * 1024;
const TAGS = ['withdrawals'];
const Result = { result: Type.String(), status: Type.String() };
const config = { errorFormat: 'result' as const };
const noValidation = { validatorCompiler: () => () => true };
const Status = Type.Object({
  ...Result,
  withdrawal_id: Type.String(),
  withdrawal_status: Type.String({ description: 'quoted, expired, pending, success or failed' }),
  crypto_amount: Type.Number(),
  tx_id: Type.String({ description: 'the settlement transaction, empty until it exists' }),
  reason: Type.Optional(Type.String({ description: 'why a withdrawal failed' })),
});

/** Registers GET /withdrawal_quote, POST /withdrawal and GET /withdrawal. */
export async function withdrawalRoutes(app: FastifyInstance, ctx: WithdrawalRoutesContext): Promise<void> {
  // Amounts are read exactly: 12.3 EUR stays the decimal 12.3, never a binary float.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseExactFields(String(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  const fields = requestFields(BODY_LIMIT);

  app.get(
    '/withdrawal_quote',
    {
      schema: {
        summary: 'Quote a withdrawal in the wallet’s local currency; the quote holds 15 minutes',
        tags: TAGS,
        querystring: Type.Object({ merchant_api_id: Type.String(), withdrawal_auth_key: Type.String(), amount: Type.String({ description: 'a decimal; in a JSON body a number' }) }),
        response: {
          200: Type.Object({
            ...Result,
            exchange_rate: Type.Union([Type.Number(), Type.String()]),
            crypto_amount: Type.Number(),
            merchant_api_id: Type.String(),
            withdrawal_id: Type.String(),
            amount: Type.Union([Type.Number(), Type.String()]),
            local_currency: Type.String(),
            expires_at: Type.String(),
          }),
        },
      },
      ...noValidation,
      config,
      preValidation: [
        fields,
        merchantKeyAuth({ idField: 'merchant_api_id', keyField: 'withdrawal_auth_key' }, (id, key) => ctx.wallets.authenticate(id, key, 'withdrawal')),
      ],
    },
    async (request) => {
      const f = fieldsOf(request);
      return okResult(await ctx.withdrawals.quote(callerOf<PartnerMerchant>(request, 'merchant'), f.values, f.fromQuery.has('amount')));
    },
  );

  app.post(
    '/withdrawal',
    {
      schema: {
        summary: 'Confirm a quote with withdrawal_auth_key; with only withdrawal_id, its status',
        tags: TAGS,
        body: Type.Object({ withdrawal_id: Type.String(), withdrawal_auth_key: Type.Optional(Type.String()) }),
        response: { 200: Status },
      },
      ...noValidation,
      config,
      preValidation: [
        fields,
        merchantKeyAuth({ idField: 'withdrawal_id', keyField: 'withdrawal_auth_key', optional: true, as: 'withdrawal' }, (id, key) =>
          ctx.withdrawals.authenticate(id, key),
        ),
      ],
    },
    async (request) => {
      const values = fieldsOf(request).values;
      const confirming = request.callers?.withdrawal as { row: WithdrawalRow; merchant: PartnerMerchant } | undefined;
      if (confirming) {
        onlyKnown(values, ['withdrawal_id', 'withdrawal_auth_key']);
        const answer = await ctx.withdrawals.confirm(confirming.row, confirming.merchant);
        if (answer.withdrawal_status === 'pending') ctx.onConfirmed();
        return okResult(answer);
      }
      return status(ctx, values);
    },
  );

  app.get(
    '/withdrawal',
    {
      schema: {
        summary: "A withdrawal's status; withdrawal_id in a JSON body or the query string",
        tags: TAGS,
        querystring: Type.Object({ withdrawal_id: Type.String() }),
        response: { 200: Status },
      },
      ...noValidation,
      config,
      preValidation: [fields],
    },
    async (request) => status(ctx, fieldsOf(request).values),
  );
}

async function status(ctx: WithdrawalRoutesContext, values: Record<string, unknown>) {
  onlyKnown(values, ['withdrawal_id']);
  const id = requiredString(values, 'withdrawal_id', 100);
  const answer = await ctx.withdrawals.status(id);
  if (!answer) throw new DomainError('invalid', 'Wrong or missing argument: unknown withdrawal_id');
  return okResult(answer);
}
