// Tests that need something outside npm (a Debian tool, a service) ask here. Locally an absent one skips those
// tests with a one-line reason; under CI=true it fails the run instead, so CI never silently skips.
import { spawnSync } from 'node:child_process';

/** Whether this run is CI (CI=true), where nothing may be skipped. */
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

const said = new Set<string>();

/**
 * True when `present`; otherwise throws under CI, or prints `why` once (one line) and returns false so the
 * caller can `describe.skipIf(!ok)`.
 */
export function available(what: string, present: boolean, why: string): boolean {
  if (present) return true;
  if (IN_CI) throw new Error(`${what} is required when CI=true: ${why}`);
  if (!said.has(what)) {
    said.add(what);
    process.stderr.write(`skipped: tests needing ${what} (${why})\n`);
  }
  return false;
}

/** Whether an executable is on PATH. */
export function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** True when the command exists; else skipped locally with the package to install, and an error under CI. */
export function hasTool(command: string, debianPackage: string): boolean {
  return available(command, onPath(command), `not on PATH; apt-get install ${debianPackage}`);
}
