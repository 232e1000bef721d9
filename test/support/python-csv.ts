// Python's csv module as an independent RFC 4180 reader of the ledger exports. Tests that use it skip with one line
// when python3 is missing locally; under CI=true (which installs it) they run.
import { execFileSync } from 'node:child_process';

/** True when python3 with its csv module runs here. */
export const pythonAvailable = (() => {
  try {
    execFileSync('python3', ['-c', 'import csv, json, sys'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** True when a suite that reads CSV through Python must skip: python3 is missing and this is not CI. */
export function skipWithoutPython(what: string): boolean {
  const skip = !pythonAvailable && process.env.CI !== 'true';
  if (skip) console.warn(`python3 is not available: the CSV cannot be read by an independent reader, so ${what} is skipped (CI=true never skips it)`);
  return skip;
}

/** Parses a CSV file with Python's csv module into header-keyed objects. */
export function pythonCsvFile(file: string): Record<string, string>[] {
  const script = 'import csv, json, sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n    print(json.dumps(list(csv.DictReader(f))))';
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Record<string, string>[];
}

/** Parses CSV text with Python's csv module into header-keyed objects. */
export function pythonCsvText(text: string): Record<string, string>[] {
  const script = 'import csv, io, json, sys\nprint(json.dumps(list(csv.DictReader(io.StringIO(sys.stdin.read(), newline="")))))';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: text, encoding: 'utf8' })) as Record<string, string>[];
}
