// npm run test:fuzz: generated bad input against every route of the OpenAPI document, on SQLite and PostgreSQL.
// Properties: no 5xx; the answer has the interface's error shape; nothing stored changed (digest of every table).
// A failure is shrunk by fast-check and appended to regressions.json, which the default suite replays.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/test-db.ts';
import { databaseDigest } from '../support/db-digest.ts';
import { rawRequest } from '../support/raw-http.ts';
import { acceptedValid, badRequests, checkAnswer, shapeOf, withPlaceholders, type BadRequest } from './bad-input.ts';
import { startFuzzTarget, type FuzzTarget } from './fixture.ts';

const REGRESSIONS = fileURLToPath(new URL('./regressions.json', import.meta.url));
/** Cases per engine (FUZZ_RUNS overrides); the run reports the total. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
/** FUZZ_TAGS=Greenfield,pages: only the routes of those tags (a focused run); default every route. */
const ONLY_TAGS = process.env.FUZZ_TAGS ? process.env.FUZZ_TAGS.split(',').map((t) => t.trim()) : null;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

describe.each(testEngines())('fuzzed bad input on %s', (engine) => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget(engine);
  });
  afterAll(async () => {
    await target?.close();
  });

  it(`${RUNS} generated bad requests: no 5xx, the interface's error shape, nothing stored changed`, async () => {
    expect(target.routes.length).toBeGreaterThanOrEqual(10);
    // Every route of the document is fuzzed, whatever its tag.
    expect(target.tags).toContain('Greenfield');
    const routes = ONLY_TAGS ? target.routes.filter((r) => r.tags.some((t) => ONLY_TAGS.includes(t))) : target.routes;
    expect(routes.length).toBeGreaterThan(0);
    const arb = fc.oneof(...routes.map((r) => badRequests(r, target.fixture)));
    const started = Date.now();
    let count = 0;
    let accepted = 0;
    /** add_pub cases whose `pub` is a generated near-valid descriptor (bad-descriptors.ts). */
    let descriptors = 0;
    /** Answers by error shape and status, to show where the cases landed (401s would mean auth stopped them). */
    const statuses: Record<string, number> = {};
    const property = fc.asyncProperty(arb, async (req: BadRequest) => {
      count++;
      if (req.code === '102') descriptors++;
      const before = await databaseDigest(target.t.testDb.db);
      const res = await rawRequest(target.port, req.method, req.path, { headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
      const bucket = `${shapeOf(req.path)} ${res.status}`;
      statuses[bucket] = (statuses[bucket] ?? 0) + 1;
      checkAnswer(req, res);
      // A case the documented schema accepts and the route answered 2xx was a valid request: it may store.
      if (acceptedValid(req, res)) {
        accepted++;
        return;
      }
      expect(await databaseDigest(target.t.testDb.db), `stored data changed by ${req.why}`).toBe(before);
    });
    const result = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: false });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`fuzz ${engine}: ${count} requests (${RUNS} cases + shrinking) (${accepted} valid by the schema and accepted, ${descriptors} near-valid descriptors) over ${routes.length} routes of tags ${ONLY_TAGS?.join(', ') ?? target.tags.join(', ')} in ${seconds} s, seed ${SEED}; answers ${JSON.stringify(statuses)}\n`);
    if (result.failed && result.counterexample) {
      const shrunk = withPlaceholders(result.counterexample[0] as BadRequest, target.values);
      const stored = JSON.parse(readFileSync(REGRESSIONS, 'utf8')) as BadRequest[];
      stored.push(shrunk);
      writeFileSync(REGRESSIONS, `${JSON.stringify(stored, null, 2)}\n`);
      throw new Error(`fuzz failure (seed ${SEED}), shrunk case stored in test/fuzz/regressions.json: ${JSON.stringify(shrunk).slice(0, 500)}\n${String(result.errorInstance)}`);
    }
  }, 1_800_000);
});
