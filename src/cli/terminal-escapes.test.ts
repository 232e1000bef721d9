// Strings merchants, partners and applications choose (a wallet's account name, a KYC description, a Greenfield
// key's label) reach the operator's terminal through the CLI. Printed raw, ESC sequences would recolour or clear
// the screen, an OSC 8 sequence would hide a link behind other text, CR would overwrite the line. The output layer
// is the same whatever the database, so this runs on SQLite only.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { MasterKey } from '../security/master-key.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { PartnerKeys } from '../partners/partner-keys.ts';
import { PartnerWallets } from '../partners/partner-wallets.ts';
import { Kyc } from '../partners/kyc.ts';
import { GreenfieldKeys } from '../greenfield/api-keys.ts';
import { runCli, type CliResult } from '../../test/support/server-process.ts';
import { escapeControls } from './output.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const REGTEST_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
/** Colour, an OSC 8 hyperlink ended by BEL, BEL, CR, a C1 CSI that clears the screen, and a forged second line. */
const HOSTILE = 'Shop\u001b[31mRED\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007\u0007\rOVER\u009b2J\nlive_fake  mainnet';
/** Every C0 and C1 control character and DEL, except the newline ending a line. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function expectNoRawControls(res: CliResult, what: string): void {
  expect(res.code, `${what}: ${res.stderr}`).toBe(0);
  expect(RAW_CONTROL.test(res.stdout), `${what} stdout: ${JSON.stringify(res.stdout)}`).toBe(false);
  expect(RAW_CONTROL.test(res.stderr), `${what} stderr: ${JSON.stringify(res.stderr)}`).toBe(false);
}

describe('control characters in CLI output', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let apiId: string;
  let merchantApiId: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'satgate-cli-esc-'));
    env = { SATGATE_DATA_DIR: dataDir, SATGATE_TEST_NETWORK: 'regtest' };
    const db = openDb({ engine: 'sqlite', file: join(dataDir, 'satgate.sqlite') });
    try {
      await migrateToLatest(db);
      const { masterKey } = MasterKey.loadOrCreate(join(dataDir, 'master.key'));
      const repo = new WalletRepository(db);
      apiId = (
        await registerWallet(
          { repo, masterKey, clock: () => Date.now(), testNetwork: 'regtest', isSupportedCurrency: () => true },
          { pub: ZPUB, account_name: HOSTILE },
        )
      ).api_id;
      const wallet = (await repo.findByApiId(apiId))!;
      await new GreenfieldKeys(db, Date.now).create({ walletId: wallet.id, storeId: apiId }, ['btcpay.store.canviewinvoices'], HOSTILE);
      const partner = await new PartnerKeys(db, masterKey, { testNetwork: 'regtest', allowPrivateWebhooks: false }).create(
        { name: 'Market\u001b[2J', test: true, settlementAddress: REGTEST_ADDRESS },
        Date.now(),
      );
      const wallets = new PartnerWallets({ db, masterKey, clock: Date.now, isSupportedCurrency: () => true });
      const created = await wallets.create(partner.partner, {
        merchant_name: HOSTILE,
        partner_merchant_id: 'm-1',
        contact: { email: 'm@shop.example', phone: '+4930123456' },
        bank_info: { iban: 'DE00' },
      });
      merchantApiId = created.merchant_api_id;
      const merchant = (await wallets.load(merchantApiId))!;
      await new Kyc(db, masterKey, Date.now, wallets).upload(merchant, {
        doc_id: 'passport',
        description: HOSTILE,
        base64: `data:image/png;base64,${PNG.toString('base64')}`,
      });
    } finally {
      await db.close();
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('wallet list, kyc list, partner list and greenfield key list show hostile names escaped, one record per line', async () => {
    const [wallets, kyc, partners, keys] = await Promise.all([
      runCli(['wallet', 'list'], env),
      runCli(['kyc', 'list'], env),
      runCli(['partner', 'list'], env),
      runCli(['greenfield', 'key', 'list'], env),
    ]);
    for (const [what, res] of Object.entries({ wallets, kyc, partners, keys })) expectNoRawControls(res, what);
    const visible = escapeControls(HOSTILE);
    expect(visible).toContain('Shop\\x1b[31mRED\\x1b]8;;https://evil.example/\\x07click');
    // The forged "live_fake" line stays inside the wallet's own line.
    expect(wallets.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(wallets.stdout).toContain(visible);
    expect(kyc.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(kyc.stdout).toContain(`${merchantApiId}  passport`);
    expect(kyc.stdout).toContain(visible);
    expect(partners.stdout).toContain('Market\\x1b[2J');
    expect(keys.stdout).toContain(visible);
  });

  it('--json prints the exact strings as JSON, with no raw control character', async () => {
    const [wallets, kyc] = await Promise.all([runCli(['wallet', 'list', '--json'], env), runCli(['kyc', 'list', '--json'], env)]);
    for (const [what, res] of Object.entries({ wallets, kyc })) expectNoRawControls(res, what);
    expect((JSON.parse(wallets.stdout) as { api_id: string; account_name: string }[]).find((w) => w.api_id === apiId)?.account_name).toBe(HOSTILE);
    expect((JSON.parse(kyc.stdout) as { description: string }[])[0]!.description).toBe(HOSTILE);
  });

  it('an error naming what the operator typed shows its control characters escaped', async () => {
    const res = await runCli(['wallet', 'export-seed', 'live_\u001b[31mx'], env);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('no wallet with api_id live_\\x1b[31mx');
    expect(RAW_CONTROL.test(res.stderr)).toBe(false);
  });

  it('escapeControls shows C0, DEL and C1 as \\xHH and keeps newlines only when asked', () => {
    expect(escapeControls('a\u0000b\tc\rd\u001b[0m\u007f\u0085\u009b\ne')).toBe('a\\x00b\\x09c\\x0dd\\x1b[0m\\x7f\\x85\\x9b\\x0ae');
    expect(escapeControls('one\ntwo\u0007', true)).toBe('one\ntwo\\x07');
    expect(escapeControls('Café ☕ 名前')).toBe('Café ☕ 名前');
  });

  it('no command writes to the terminal except through the escaping output (src/cli/output.ts)', () => {
    const root = fileURLToPath(new URL('.', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'output.ts') {
          const text = readFileSync(path, 'utf8');
          if (/\bconsole\.(log|error|warn|info|debug)\b|process\.(stdout|stderr)\.write/.test(text)) offenders.push(path.slice(root.length));
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
