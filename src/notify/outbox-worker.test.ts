import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { startSmtpCapture } from '../../test/support/smtp-capture.ts';
import { MasterKey } from '../security/master-key.ts';
import type { Db } from '../db/database.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { enqueueNotifications } from './outbox.ts';
import { OutboxWorker } from './outbox-worker.ts';
import { WebhookSender } from './webhook-sender.ts';
import { Mailer } from './mailer.ts';
import { verifyWebhookSignature } from './webhook-signature.ts';
import { RETRY_WINDOW_MS } from './retry-schedule.ts';

const masterKey = MasterKey.fromBytes(new Uint8Array(32).fill(9));
const log = pino({ level: 'silent' });
const SECRET = 'whsec_test_secret_0123456789abcdef';

interface Merchant {
  url: string;
  requests: Array<{ path: string; body: string; signature: string | undefined }>;
  close(): Promise<void>;
}

/** A local merchant server answering each request with the next status of `statuses` (then the last one). */
async function merchant(statuses: number[], extra?: (req: IncomingMessage) => void): Promise<Merchant> {
  const requests: Merchant['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      extra?.(req);
      requests.push({ path: req.url ?? '', body, signature: req.headers['x-satgate-signature'] as string | undefined });
      const status = statuses[Math.min(requests.length - 1, statuses.length - 1)]!;
      res.writeHead(status, status >= 300 && status < 400 ? { location: '/elsewhere' } : {}).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

describe.each(testEngines())('the outbox on %s', (engine) => {
  let testDb: TestDb;
  let walletId: bigint;
  let now: number;
  const clock = () => now;
  const dataDir = mkdtempSync(join(tmpdir(), 'satgate-mail-'));

  beforeEach(async () => {
    now = Date.UTC(2026, 10, 21, 12, 0, 0);
    testDb = await createTestDb(engine);
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey, clock, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    walletId = (await repo.findByApiId(api_id))!.id;
    await testDb.db.kysely
      .insertInto('webhook_secrets')
      .values({ wallet_id: walletId, secret_sealed: masterKey.seal(SECRET), rotated_at: BigInt(now) })
      .execute();
  });

  afterEach(async () => {
    await testDb.dispose();
  });

  function worker(db: Db, opts: { allowPrivate?: boolean; smtpUrl?: string | null } = {}) {
    return new OutboxWorker({
      db,
      clock,
      log,
      masterKey,
      webhooks: new WebhookSender(db, masterKey, opts.allowPrivate ?? true, 2_000),
      mailer: new Mailer(opts.smtpUrl ?? null, dataDir, 'satgate <satgate@localhost>', log),
    });
  }

  async function enqueue(db: Db, kind: 'webhook' | 'email', target: string): Promise<string> {
    const [id] = await db.kysely
      .transaction()
      .execute((trx) =>
        enqueueNotifications(trx, [{ kind, target, walletId, paymentId: null, payload: { event: 'payment', payment_reference: 'pay_x', status: 'confirmed' } }], now),
      );
    return id!;
  }

  it('a merchant that fails five times then succeeds gets the event exactly once as a success, across a restart', async () => {
    const shop = await merchant([500, 500, 500, 500, 500, 200]);
    try {
      const eventId = await enqueue(testDb.db, 'webhook', shop.url);
      const first = worker(testDb.db);
      expect(await first.runOnce()).toBe(1);
      now += 60_000;
      expect(await first.runOnce()).toBe(1);
      now += 299_000;
      expect(await first.runOnce()).toBe(0); // not due before its 5-minute backoff
      await first.stop();

      // A restart in the middle of the schedule: a new process, a new database handle, the same rows.
      const reopened = testDb.reopen();
      try {
        const second = worker(reopened);
        for (const delay of [1_000, 1_800_000, 7_200_000, 21_600_000]) {
          now += delay;
          expect(await second.runOnce()).toBe(1);
        }
        now += 86_400_000;
        expect(await second.runOnce()).toBe(0);

        // Six attempts, the sixth the only success; every one carries the same event, signed.
        expect(shop.requests).toHaveLength(6);
        for (const r of shop.requests) {
          expect(JSON.parse(r.body).event_id).toBe(eventId);
          const t = Number(/t=(\d+)/.exec(r.signature!)![1]);
          expect(verifyWebhookSignature(r.signature!, r.body, SECRET, 300, t)).toBe(true);
          expect(verifyWebhookSignature(r.signature!, r.body, 'another secret', 300, t)).toBe(false);
        }
        const row = await reopened.kysely.selectFrom('outbox').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
        expect(row.state).toBe('delivered');
        expect(Number(row.attempts)).toBe(6);
        const attempts = await reopened.kysely.selectFrom('outbox_attempts').selectAll().where('outbox_id', '=', row.id).orderBy('attempt').execute();
        expect(attempts.map((a) => (a.http_status === null ? null : Number(a.http_status)))).toEqual([500, 500, 500, 500, 500, 200]);
      } finally {
        await reopened.close();
      }
    } finally {
      await shop.close();
    }
  });

  it('a redirect is a failed attempt and is not followed', async () => {
    const shop = await merchant([302]);
    try {
      await enqueue(testDb.db, 'webhook', shop.url);
      await worker(testDb.db).runOnce();
      expect(shop.requests.map((r) => r.path)).toEqual(['/hook']);
      const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
      expect(row.state).toBe('pending');
      expect(row.last_error).toMatch(/302.*not followed/);
    } finally {
      await shop.close();
    }
  });

  it('a loopback webhook URL is refused at send time unless private webhooks are allowed, and failed at once with the reason', async () => {
    const shop = await merchant([200]);
    try {
      await enqueue(testDb.db, 'webhook', shop.url);
      await worker(testDb.db, { allowPrivate: false }).runOnce();
      expect(shop.requests).toHaveLength(0);
      const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
      // Not retried for three days: the target will not stop being loopback.
      expect(row.state).toBe('failed');
      expect(Number(row.attempts)).toBe(1);
      expect(row.last_error).toMatch(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address/);
    } finally {
      await shop.close();
    }
  });

  it('a webhook host that does not resolve is retried: DNS may answer later', async () => {
    await enqueue(testDb.db, 'webhook', 'http://no-such-host.invalid/hook');
    await worker(testDb.db, { allowPrivate: false }).runOnce();
    const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.state).toBe('pending');
    expect(row.last_error).toMatch(/^dns: cannot resolve no-such-host\.invalid/);
  });

  it('an event still failing after three days is given up as failed', async () => {
    await enqueue(testDb.db, 'webhook', 'http://127.0.0.1:9/unreachable');
    const w = worker(testDb.db);
    let rounds = 0;
    while (rounds < 50) {
      const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
      if (row.state !== 'pending') break;
      now = Number(row.next_attempt_at);
      await w.runOnce();
      rounds++;
    }
    const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.state).toBe('failed');
    expect(now - Number(row.created_at)).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(Number(row.attempts)).toBeGreaterThan(5);
  });

  it('e-mails go through SMTP when configured', async () => {
    const smtp = await startSmtpCapture();
    try {
      await enqueue(testDb.db, 'email', 'shop@example.com');
      await worker(testDb.db, { smtpUrl: smtp.url }).runOnce();
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]).toMatch(/Subject: \[satgate\] Payment pay_x: confirmed/);
      expect(smtp.mails[0]).toMatch(/To: shop@example.com/);
      const row = await testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
      expect(row.state).toBe('delivered');
    } finally {
      await smtp.close();
    }
  });

  it('without SMTP, e-mails are written as files under the data directory', async () => {
    const eventId = await enqueue(testDb.db, 'email', 'shop@example.com');
    await worker(testDb.db, { smtpUrl: null }).runOnce();
    const files = readdirSync(join(dataDir, 'mail')).filter((f) => f.includes(eventId));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(dataDir, 'mail', files[0]!), 'utf8')).toMatch(/Payment pay_x is now confirmed/);
  });
});
