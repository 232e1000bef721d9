/** The outbox event of a notice to a wallet's Owners about its team (issue 40). */
export const TEAM_NOTICE_EVENT = 'team_notice';

/** What happened: a member added, a member's role raised, or an API key able to move money created. */
export type TeamNoticeKind = 'member_added' | 'role_raised' | 'money_key_created';

function text(v: unknown): string {
  // One line of ours per value: whatever a member typed cannot pass for a line of the notice.
  return typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim() : '';
}

/**
 * The notice mailed to every Owner of a wallet when its team gains power: who did it, to whom, when. It names no
 * secret (the key itself never; its public id and permissions only). English: the console has no other language.
 */
export function renderTeamMail(event: Record<string, unknown>): { subject: string; text: string } {
  const apiId = text(event.api_id);
  const by = text(event.by) || 'someone';
  const at = typeof event.at === 'string' ? `${event.at.slice(0, 10)} ${event.at.slice(11, 16)} UTC` : 'just now';
  let subject: string;
  let what: string[];
  if (event.kind === 'member_added') {
    subject = `[satgate] ${text(event.member)} joined wallet ${apiId} as ${text(event.role)}`;
    what = [`${by} added ${text(event.member)} to the wallet ${apiId}`, `as ${text(event.role)} on ${at}.`];
  } else if (event.kind === 'role_raised') {
    subject = `[satgate] ${text(event.member)} is now ${text(event.role)} of wallet ${apiId}`;
    what = [`${by} raised the role of ${text(event.member)} in the wallet ${apiId}`, `from ${text(event.from_role)} to ${text(event.role)} on ${at}.`];
  } else {
    const policies = Array.isArray(event.policies) ? event.policies.map(text) : [];
    subject = `[satgate] An API key that can move money was created for wallet ${apiId}`;
    what = [`${by} created the Greenfield API key ${text(event.key_id)} for the wallet ${apiId}`, `on ${at}, with these permissions:`, '', ...policies.map((p) => `  ${p}`), '', 'It can refund or withdraw.'];
  }
  const lines = [
    'Hello,',
    '',
    'you are an Owner of this satgate wallet, so you are told when its team gains power:',
    '',
    ...what,
    '',
    'If this is expected, nothing needs doing. Otherwise sign in to the console,',
    `${text(event.console_url)}, open the wallet's Members page and its audit trail.`,
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}
