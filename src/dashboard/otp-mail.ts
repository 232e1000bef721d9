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
    `Dashboard: ${publicUrl}`,
    requestedFrom ? `Requested from the IP address ${requestedFrom}.` : null,
    '',
    'If you did not ask for it, you can ignore this e-mail: nobody can log',
    'in without the code, and nothing changes on your account.',
    'Never share the code; nobody from satgate will ever ask for it.',
  ].filter((l): l is string => l !== null);
  return { subject: 'Your satgate dashboard login code', text: `${lines.join('\n')}\n` };
}
