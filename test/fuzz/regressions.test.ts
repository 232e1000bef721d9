// Every failing case the fuzz suite ever found (shrunk, in regressions.json), replayed in the default suite.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/test-db.ts';
import { databaseDigest } from '../support/db-digest.ts';
import { rawRequest } from '../support/raw-http.ts';
import { acceptedValid, checkAnswer, fillPlaceholders, type BadRequest } from './bad-input.ts';
import { startFuzzTarget, type FuzzTarget } from './fixture.ts';

const CASES = JSON.parse(readFileSync(new URL('./regressions.json', import.meta.url), 'utf8')) as BadRequest[];

describe.each(testEngines())('fuzz regressions on %s', (engine) => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget(engine);
  });
  afterAll(async () => {
    await target?.close();
  });

  it(`each of the ${CASES.length} shrunk fuzz failures now answers a 4xx in shape and changes nothing`, async () => {
    expect(CASES.length).toBeGreaterThan(0);
    for (const stored of CASES) {
      const req = fillPlaceholders(stored, target.values);
      const before = await databaseDigest(target.t.testDb.db);
      const res = await rawRequest(target.port, req.method, req.path, { headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
      checkAnswer(req, res);
      if (acceptedValid(req, res)) continue;
      expect(await databaseDigest(target.t.testDb.db), `stored data changed by ${req.why}`).toBe(before);
    }
  });
});
