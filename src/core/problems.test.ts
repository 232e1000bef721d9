import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProblemError } from './errors.ts';
import { PROBLEMS, problemType, type ProblemName } from './problems.ts';

// The table lives on the payment API's page, which the README links.
const README = readFileSync(new URL('../../docs/payment-api.md', import.meta.url), 'utf8');

/** The rows of the problem type table (docs/payment-api.md): "| `name` | status | title | …". */
function documentedProblems(): Map<string, { status: number; title: string }> {
  const start = README.indexOf('### Problem types');
  expect(start, 'README.md has a "### Problem types" section').toBeGreaterThan(-1);
  const section = README.slice(start, README.indexOf('\n## ', start) === -1 ? undefined : README.indexOf('\n## ', start));
  const rows = new Map<string, { status: number; title: string }>();
  for (const m of section.matchAll(/^\|\s*`([a-z-]+)`\s*\|\s*(\d{3})\s*\|\s*([^|]+?)\s*\|/gm)) {
    rows.set(m[1]!, { status: Number(m[2]), title: m[3]! });
  }
  return rows;
}

describe('payment API problem types', () => {
  it('every problem is documented in the README with its status and title', () => {
    const documented = documentedProblems();
    for (const [name, { status, title }] of Object.entries(PROBLEMS)) {
      expect(documented.get(name), `README documents problem ${name}`).toEqual({ status, title });
    }
  });

  it('the README documents no problem the code does not define', () => {
    expect([...documentedProblems().keys()].sort()).toEqual(Object.keys(PROBLEMS).sort());
  });

  it('every problem type is a URI under the public URL, none about:blank', () => {
    expect(problemType('unauthorized', 'https://pay.example/')).toBe('https://pay.example/problems/unauthorized');
    expect(problemType('invalid-request', 'https://pay.example')).toBe('https://pay.example/problems/invalid-request');
    expect(problemType('no-such-operation', 'https://pay.example')).toBe('https://pay.example/problems/no-such-operation');
  });

  it('a ProblemError takes its status and title from the catalogue', () => {
    const names = Object.keys(PROBLEMS) as ProblemName[];
    for (const name of names) {
      const err = new ProblemError(name, 'detail');
      expect([err.status, err.title, err.message]).toEqual([PROBLEMS[name].status, PROBLEMS[name].title, 'detail']);
    }
  });
});
