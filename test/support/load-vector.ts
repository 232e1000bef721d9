/** Reads a JSON test vector file from test/vectors/. */
import { readFileSync } from 'node:fs';

/** Parse `test/vectors/<name>` (the caller states the expected shape). */
export function loadVector<T>(name: string): T {
  const url = new URL(`../vectors/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}
