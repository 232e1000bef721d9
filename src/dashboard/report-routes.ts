// The dashboard API's reports of one of the merchant's wallets (issue 34): the ledger streamed as CSV or JSON Lines
// with the CLI export's columns, and its per-period summaries. Same session token and error envelope as the other
// merchant views; a bad query is refused before the first byte is sent.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ok } from '../http/envelope.ts';
import { dashboardAuth, requireDashboardSession } from '../http/dashboard-auth.ts';
import { useStrictSchemas } from '../http/strict-schema.ts';
import type { Teams } from '../teams/teams.ts';
import { teamGuard } from './team-guard.ts';
import { LEDGER_COLUMNS } from '../reports/ledger.ts';
import { ledgerLines, summarize, SUMMARY_COLUMNS } from '../reports/exports.ts';
import type { SessionVerifier } from './sessions.ts';
import type { Merchant } from './merchant.ts';
import { downloadHeaders, exportStream, REPORT_KINDS, reportSummaries, reportTime } from './merchant-reports.ts';

const tags = ['dashboard'];
const security = [{ dashboardToken: [] }];
const Time = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2}))?$', description: `${description}: a date (its midnight UTC) or an ISO 8601 time with its zone` });
const Params = Type.Object({ api_id: Type.String({ minLength: 1, maxLength: 100 }) });
const Period = { from: Time('start of the period, included'), to: Time('end of the period, excluded') };
const LedgerQuery = Type.Object(
  {
    ...Period,
    kind: Type.Optional(Type.Union(REPORT_KINDS.map((k) => Type.Literal(k)), { description: 'only rows of this kind (default all)' })),
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], { description: 'csv (default) or jsonl' })),
  },
  { additionalProperties: false },
);
const SummaryQuery = Type.Object(
  {
    ...Period,
    period: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('month'), Type.Literal('year')], { description: 'day (default), month or year, in UTC' })),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'json (default, in the envelope) or csv' })),
  },
  { additionalProperties: false },
);

/** Registers the report routes under /dashboard/wallets/:api_id/reports/. */
export async function reportRoutes(app: FastifyInstance, ctx: { merchant: Merchant; sessions: SessionVerifier; teams: Teams }): Promise<void> {
  useStrictSchemas(app);
  app.addHook('preValidation', dashboardAuth(app, ctx.sessions));
  app.addHook('preHandler', teamGuard(ctx.teams, ctx.merchant));

  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof LedgerQuery> }>(
    '/dashboard/wallets/:api_id/reports/ledger',
    {
      schema: {
        summary: "The wallet's ledger over a period (every receipt, refund, withdrawal and spend with the fiat value at first sight), streamed as CSV or JSON Lines with the columns of `satgate report ledger`",
        tags,
        security,
        params: Params,
        querystring: LedgerQuery,
      },
    },
    async (request, reply) => {
      const q = request.query;
      const from = reportTime(q.from, 'from');
      const to = reportTime(q.to, 'to');
      const format = q.format ?? 'csv';
      const report = await ctx.merchant.report(requireDashboardSession(request), { apiId: request.params.api_id, from, to, ...(q.kind ? { kind: q.kind } : {}) });
      return reply.headers(downloadHeaders(report.apiId, 'ledger', from, to, format)).send(exportStream(ledgerLines(report.rows()), LEDGER_COLUMNS, format));
    },
  );

  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof SummaryQuery> }>(
    '/dashboard/wallets/:api_id/reports/summary',
    {
      schema: {
        summary: "The wallet's ledger summed per UTC day, month or year (count, BTC in, BTC out, fees, fiat in at payment-time rates), as `satgate report summary`",
        tags,
        security,
        params: Params,
        querystring: SummaryQuery,
      },
    },
    async (request, reply) => {
      const q = request.query;
      const from = reportTime(q.from, 'from');
      const to = reportTime(q.to, 'to');
      const period = q.period ?? 'day';
      const report = await ctx.merchant.report(requireDashboardSession(request), { apiId: request.params.api_id, from, to });
      if (q.format === 'csv') return reply.headers(downloadHeaders(report.apiId, `summary-${period}`, from, to, 'csv')).send(exportStream(summarize(report.rows(), period), SUMMARY_COLUMNS, 'csv'));
      return ok({ api_id: report.apiId, currency: report.currency, period, from: new Date(from).toISOString(), to: new Date(to).toISOString(), summaries: await reportSummaries(report, period) });
    },
  );
}
