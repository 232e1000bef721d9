import { describe, expect, it } from 'vitest';
import { otpMail } from './otp-mail.ts';

describe('the login code e-mail', () => {
  it('says what the code is for, how long it lasts, where it was asked from, and that it can be ignored', () => {
    const mail = otpMail('048213', '203.0.113.9', 'https://pay.shop.example');
    expect(mail.subject).toBe('Your satgate dashboard login code');
    expect(mail.subject).not.toContain('048213');
    expect(mail.text).toContain('log in to the satgate merchant dashboard is:\n\n    048213\n');
    expect(mail.text).toContain('valid for 10 minutes and works once');
    expect(mail.text).toContain('Requested from the IP address 203.0.113.9.');
    expect(mail.text).toContain('If you did not ask for it, you can ignore this e-mail');
  });

  it('keeps every line under 76 characters, so it travels as plain text', () => {
    const mail = otpMail('123456', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'https://pay.shop.example');
    for (const line of mail.text.split('\n')) expect(line.length, line).toBeLessThan(76);
  });
});
