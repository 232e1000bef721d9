import { existsSync, readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { WALLET_API_CODES, WalletApiError } from './errors.ts';

const INTERFACE_MD = new URL('../../../shared/INTERFACE.md', import.meta.url);
// The code table lives on the wallet API's page, which the README links.
const README_MD = new URL('../../docs/wallet-api.md', import.meta.url);

/** INTERFACE.md section 7 as of this writing, used when the spec is not checked out beside the repo. */
const FALLBACK_CODES = [
  '0', '101', '102', '103', '106', '201', '301', '302', '303', '304', '305', '306', '307', '308', '309', '997', '998', '999',
];

/** DESIGN.md section 7: the HTTP status of each wallet API code. */
const DESIGN_STATUS: Record<string, number> = {
  '0': 200,
  '101': 400, '102': 400, '103': 400, '106': 400, '201': 400, '308': 400, '309': 400,
  '302': 401, '303': 401, '304': 401, '305': 401, '306': 401, '307': 401,
  '301': 404, '999': 404,
  '997': 500, '998': 500,
};

/** The codes of the table in INTERFACE.md section 7 ("| 101 | Currency is not valid |" rows). */
function interfaceCodes(): { codes: string[]; meanings: Record<string, string> } {
  if (!existsSync(INTERFACE_MD)) return { codes: FALLBACK_CODES, meanings: {} };
  const text = readFileSync(INTERFACE_MD, 'utf8');
  const start = text.search(/^## 7\. Errors/m);
  const rest = text.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end === -1 ? rest : rest.slice(0, end);
  const meanings: Record<string, string> = {};
  for (const m of section.matchAll(/^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|/gm)) meanings[m[1]!] = m[2]!;
  return { codes: Object.keys(meanings), meanings };
}

describe('wallet API result codes', () => {
  const { codes, meanings } = interfaceCodes();

  it('the interface table is found and lists the known codes', () => {
    expect(codes.length).toBeGreaterThanOrEqual(FALLBACK_CODES.length);
    expect(codes).toEqual(expect.arrayContaining(FALLBACK_CODES));
  });

  it('every code of INTERFACE.md section 7 is defined with the HTTP status of DESIGN.md section 7', () => {
    for (const code of codes) {
      const def = (WALLET_API_CODES as Record<string, { http: number; message: string }>)[code];
      expect(def, `code ${code}`).toBeDefined();
      expect(def!.http, `HTTP status of code ${code}`).toBe(DESIGN_STATUS[code]);
      if (meanings[code]) expect(def!.message, `message of code ${code}`).toBe(meanings[code]);
    }
  });

  it('no code is defined that the interface does not list', () => {
    expect(Object.keys(WALLET_API_CODES).sort()).toEqual([...codes].sort());
  });

  it('a WalletApiError carries its code, HTTP status and the generic or given message', () => {
    const generic = new WalletApiError('102');
    expect(generic.code).toBe('102');
    expect(generic.httpStatus).toBe(400);
    expect(generic.message).toBe('Public key is not valid');
    const detailed = new WalletApiError('301', 'no such profile');
    expect(detailed.httpStatus).toBe(404);
    expect(detailed.message).toBe('no such profile');
  });

  it('every code appears in the README error table', () => {
    expect(existsSync(README_MD), 'README.md exists at the repository root').toBe(true);
    const readme = readFileSync(README_MD, 'utf8');
    for (const code of codes) {
      const row = new RegExp(`^\\|\\s*${code}\\s*\\|(.*)$`, 'm').exec(readme);
      expect(row, `README row for code ${code}`).not.toBeNull();
      // When the table has an HTTP status column, it must agree with DESIGN.md.
      const status = /^\s*(\d{3})\s*\|/.exec(row![1]!);
      if (status) expect(Number(status[1]), `README HTTP status of code ${code}`).toBe(DESIGN_STATUS[code]);
    }
  });
});
