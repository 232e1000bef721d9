// A real SMTP server (smtp-server) on a free local port that keeps every message it receives, for tests that
// need the mails the service sends (sign-in codes, notifications). Plain SMTP, no auth: the service's mailer
// connects to `url` as it would to any relay.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eventually } from './server-process.ts';

/** A running capture. */
export interface SmtpCapture {
  /** Every message received, raw (headers and body), in arrival order. Tests may remove what they consumed. */
  readonly mails: string[];
  /** `smtp://127.0.0.1:<port>`, for SATGATE_SMTP_URL or a Mailer. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a capture on 127.0.0.1 and a free port. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, cb) {
      let data = '';
      stream.on('data', (c: Buffer) => (data += c.toString()));
      stream.on('end', () => {
        mails.push(data);
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    mails,
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The six-digit sign-in code of a login mail (on its own indented line), if it has one. */
export function signInCode(mail: string): string | undefined {
  return /^ {4}([0-9]{6})\r?$/m.exec(mail)?.[1];
}

/**
 * Waits for the first captured mail to `to`, removes it from the capture (so the next sign-in waits for a new
 * one) and returns it with its sign-in code.
 */
export async function takeLoginMail(capture: SmtpCapture, to: string): Promise<{ mail: string; code: string }> {
  const mail = await eventually(async () => capture.mails.find((m) => m.includes(`To: ${to}`)), 20_000, `a login mail to ${to}`);
  capture.mails.splice(capture.mails.indexOf(mail), 1);
  const code = signInCode(mail);
  if (!code) throw new Error(`no sign-in code in the mail to ${to}: ${mail}`);
  return { mail, code };
}
