// The console's audit trail of a wallet (issue 40): every state-changing action its members and API keys took,
// newest first, with who, what, when and from which IP. The permission table's `view_audit` (Owners and Managers)
// guards it on the server; the page only reads.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Merchant } from '../dashboard/merchant.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Teams } from '../teams/teams.ts';
import type { AuditRow } from '../teams/audit.ts';
import { escapeHtml as e } from '../pages/html.ts';
import { consolePage, when, type Shell } from './views/layout.ts';

/** What the page needs from the console. */
export interface AuditPageDeps {
  merchant: Merchant;
  teams: Teams;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
}

const ACTION_NAMES: Record<string, string> = {
  view_payments: 'Payments',
  create_payments: 'Payment created',
  refund: 'Refund',
  spend: 'Spending',
  change_settings: 'Settings',
  manage_members: 'Members',
  manage_keys: 'API keys',
  view_reports: 'Reports',
  use_pos: 'Point of sale',
};

function renderAudit(base: Omit<Shell, 'title' | 'section'>, apiId: string, rows: AuditRow[]): string {
  const body = rows
    .map(
      (r) => `      <tr><td>${e(when(r.at))}</td><td>${e(r.actorKind === 'key' ? `API key ${r.actor}` : r.actor)}</td><td>${e(r.action === null ? '' : (ACTION_NAMES[r.action] ?? r.action))}</td><td><code>${e(r.route)}</code>${r.target ? ` <code>${e(r.target)}</code>` : ''}${r.detail ? `<br>${e(r.detail)}` : ''}</td><td>${e(r.ip ?? '')}</td></tr>`,
    )
    .join('\n');
  return consolePage(
    { ...base, title: 'Audit trail', section: 'wallets' },
    `<p><a href="/console/wallets/${encodeURIComponent(apiId)}">Back to the wallet</a></p>
<table><caption>Audit trail of ${e(apiId)} (newest first, the last 200)</caption><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">What</th><th scope="col">IP address</th></tr></thead><tbody>
${body || '      <tr><td colspan="5">Nothing recorded yet.</td></tr>'}
    </tbody></table>`,
  );
}

/** Registers the Audit trail page. */
export function auditPages(app: FastifyInstance, d: AuditPageDeps): void {
  app.get<{ Params: { api_id: string } }>('/console/wallets/:api_id/audit', { schema: { hide: true } }, async (request, reply) => {
    // Not the member's wallet: 404 as any other wallet (merchant.wallet refuses it).
    const apiId = (await d.merchant.wallet(d.session(request), request.params.api_id)).api_id;
    return d.html(reply, 200, renderAudit(d.base(request), apiId, await d.teams.audit(apiId)));
  });
}
