/** Minutes a login code lasts (DESIGN.md 9 "dashboard login"). */
export const OTP_MINUTES = 10;

/** The login code e-mail: what the code is for, how long it lasts, and what to do if it was not asked for. */
export function otpMail(code: string, requestedFrom: string | null, publicUrl: string): { subject: string; text: string } {
  const lines = [
    'Hello,',
    '',
    `Your code to log in to the satgate merchant dashboard at ${publicUrl} is:`,
    '',
    `    ${code}`,
    '',
    `It is valid for ${OTP_MINUTES} minutes and works once. A newer code replaces it.`,
    requestedFrom ? `It was requested from the IP address ${requestedFrom}.` : null,
    '',
    'If you did not ask for it, you can ignore this e-mail: nobody can log in without the code,',
    'and nothing changes on your account. Never share the code; satgate staff will never ask for it.',
  ].filter((l): l is string => l !== null);
  return { subject: 'Your satgate dashboard login code', text: `${lines.join('\n')}\n` };
}
