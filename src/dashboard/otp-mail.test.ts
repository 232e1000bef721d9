import { describe, expect, it } from 'vitest';
import { lockoutMail, otpMail } from './otp-mail.ts';

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

  it('links the console, where a merchant signs in, not the API root', () => {
    const mail = otpMail('048213', null, 'https://pay.shop.example');
    expect(mail.text).toContain('Console: https://pay.shop.example/console/\n');
    expect(lockoutMail(100, 0, null, 'https://pay.shop.example', 24).text).toContain('Console: https://pay.shop.example/console/\n');
  });

  it('keeps every line under 76 characters, so it travels as plain text', () => {
    const mail = otpMail('123456', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'https://pay.shop.example');
    for (const line of mail.text.split('\n')) expect(line.length, line).toBeLessThan(76);
  });
});

describe('the lockout e-mail', () => {
  const until = Date.UTC(2026, 10, 22, 12, 5, 0);

  it('says what happened, that nobody got in, until when code sign-in is locked, and what to do', () => {
    const mail = lockoutMail(100, until, '203.0.113.9', 'https://pay.shop.example', 24);
    expect(mail.subject).toBe('Sign-in to your satgate dashboard is locked');
    expect(mail.text).toContain('100 wrong sign-in codes in a row were entered for this e-mail');
    expect(mail.text).toContain('the last one from the IP address 203.0.113.9.');
    expect(mail.text).toContain('locked\nuntil 2026-11-22 12:05 UTC.');
    expect(mail.text).toContain('Nobody signed in with these codes');
    expect(mail.text).toContain('wait until then and ask for a new code');
    expect(mail.text).toContain('satgate login unlock <your e-mail address>');
    expect(mail.text).toContain('each further wrong code locks it again for 24 hours');
  });

  it('keeps every line under 76 characters', () => {
    const mail = lockoutMail(100, until, '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'https://pay.shop.example', 24);
    for (const line of mail.text.split('\n')) expect(line.length, line).toBeLessThan(76);
  });
});
