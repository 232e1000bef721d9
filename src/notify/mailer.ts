import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { AttemptOutcome } from './webhook-sender.ts';

/** A message to send. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends e-mail over SMTP (SATGATE_SMTP_URL); without it, writes each message as an .eml file under
 * the data directory, so nothing is lost and an operator can see what would have gone out.
 */
export class Mailer {
  private readonly transport: Transporter | null;
  private readonly fileDir: string;
  private announced = false;

  constructor(
    smtpUrl: string | null,
    dataDir: string,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
    this.fileDir = join(dataDir, 'mail');
  }

  /** Where mail goes, for logs and health. */
  describe(): string {
    return this.transport ? 'SMTP (SATGATE_SMTP_URL)' : `files in ${this.fileDir}`;
  }

  /** Sends one message; never throws. */
  async send(message: MailMessage, eventId: string): Promise<AttemptOutcome> {
    const started = Date.now();
    const mail = { from: this.from, to: message.to, subject: message.subject, text: message.text, messageId: `<${eventId}@satgate>` };
    try {
      if (this.transport) {
        await this.transport.sendMail(mail);
      } else {
        const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail(mail);
        mkdirSync(this.fileDir, { recursive: true, mode: 0o700 });
        const file = join(this.fileDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${eventId}.eml`);
        writeFileSync(file, built.message as Buffer, { mode: 0o600 });
        if (!this.announced) {
          this.announced = true;
          this.log.info({ dir: this.fileDir }, 'no SATGATE_SMTP_URL: e-mails are written as files here instead of being sent');
        }
      }
      return { ok: true, httpStatus: null, error: null, durationMs: Date.now() - started };
    } catch (err) {
      return { ok: false, httpStatus: null, error: err instanceof Error ? err.message : String(err), durationMs: Date.now() - started };
    }
  }
}
