// The house's shape, checked on every run: no import runs up a layer and no circle of imports spans folders
// (tools/layer-imports.mjs, the command docs/architecture.md names).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TOOL = fileURLToPath(new URL('../../tools/layer-imports.mjs', import.meta.url));

describe('layering of src/', () => {
  it('has no import from a lower layer to a higher one and no circle of imports across folders', () => {
    const out = execFileSync(process.execPath, [TOOL, '--list'], { encoding: 'utf8' });
    expect(out).toContain('imports from a lower layer to a higher one: 0');
    expect(out).toContain('circles of imports spanning folders: 0');
  });
});
