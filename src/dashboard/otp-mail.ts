/** Where a merchant signs in with the code: the console (the API root answers only API calls). */
const consoleUrl = (publicUrl: string) => `${publicUrl}/console/`;

/** Minutes a login code lasts (DESIGN.md 9 "dashboard login"). */
export const OTP_MINUTES = 10;

/**
 * The login code e-mail: what the code is for, how long it lasts, and what to do if it was not asked for.
 * Lines stay under 76 characters so the message goes out as plain 7-bit text, readable in any .eml file.
 */
export function otpMail(code: string, requestedFrom: string | null, publicUrl: string): { subject: string; text: string } {
  const lines = [
    'Hello,',
    '',
    'Your code to log in to the satgate merchant dashboard is:',
    '',
    `    ${code}`,
    '',
    `It is valid for ${OTP_MINUTES} minutes and works once. A newer code replaces it.`,
    `Console: ${consoleUrl(publicUrl)}`,
    requestedFrom ? `Requested from the IP address ${requestedFrom}.` : null,
    '',
    'If you did not ask for it, you can ignore this e-mail: nobody can log',
    'in without the code, and nothing changes on your account.',
    'Never share the code; nobody from satgate will ever ask for it.',
  ].filter((l): l is string => l !== null);
  return { subject: 'Your satgate dashboard login code', text: `${lines.join('\n')}\n` };
}

/**
 * The mail that tells a profile's owner that code sign-in was locked after too many wrong codes in a row: what
 * happened, that nobody got in, until when, and what to do. Sent once, when the lockout starts.
 */
export function lockoutMail(
  failures: number,
  until: number,
  lastFrom: string | null,
  publicUrl: string,
  lockoutHours: number,
): { subject: string; text: string } {
  const untilText = `${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const lines = [
    'Hello,',
    '',
    `${failures} wrong sign-in codes in a row were entered for this e-mail`,
    'address on the satgate merchant dashboard since its last sign-in,',
    lastFrom ? `the last one from the IP address ${lastFrom}.` : 'the last one just now.',
    '',
    'To protect your account, signing in with a code is locked',
    `until ${untilText}.`,
    '',
    'Nobody signed in with these codes, and nothing changed on your account:',
    'your wallets and payments work as before.',
    '',
    'What to do:',
    '- If it was you, wait until then and ask for a new code.',
    '- If it was not you, someone is trying to guess your codes. Never',
    '  share a code; nobody from satgate will ever ask for it.',
    '- To sign in sooner, ask the operator of this satgate service to lift',
    '  the lock (satgate login unlock <your e-mail address>).',
    '',
    `Until you sign in, each further wrong code locks it again for ${lockoutHours} hours.`,
    `Console: ${consoleUrl(publicUrl)}`,
  ];
  return { subject: 'Sign-in to your satgate dashboard is locked', text: `${lines.join('\n')}\n` };
}
