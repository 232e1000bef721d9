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

/**
 * A captured single-part text mail as its reader sees it: the Subject with RFC 2047 encoded words decoded, the body
 * with its transfer encoding (quoted-printable or base64) undone as UTF-8. For mails in languages beyond ASCII.
 */
export function readMail(raw: string): { to: string; subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const words = (value: string) =>
    value
      .replace(/\?=\s+=\?/g, '?==?')
      .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, data: string) =>
        enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(qpBytes(data.replace(/_/g, ' '))).toString('utf8'),
      );
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? Buffer.from(qpBytes(body.replace(/=\r?\n/g, ''))).toString('utf8')
        : body;
  return { to: header('To'), subject: words(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

function qpBytes(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? /^[0-9A-Fa-f]{2}/.exec(text.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return bytes;
}
