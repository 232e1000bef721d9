// The console's stylesheet and script, read once at start from src/console/assets and served under
// /console/assets/ with a content hash in the URL (cached by browsers, refreshed on every change).
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { ConsoleAssetUrls } from './views/layout.ts';

/** One static file. */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** URL prefix of the console assets. */
export const CONSOLE_ASSET_PREFIX = '/console/assets/';

const TYPES: Record<string, string> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
};

/** Reads the console assets. */
export function loadConsoleAssets(dir: URL = new URL('./assets/', import.meta.url)): { urls: ConsoleAssetUrls; files: ReadonlyMap<string, ConsoleAsset> } {
  const files = new Map<string, ConsoleAsset>();
  const version: Record<string, string> = {};
  for (const [name, contentType] of Object.entries(TYPES)) {
    const body = readFileSync(new URL(name, dir));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    files.set(name, { body, contentType, etag: `"${hash}"` });
    version[name] = hash;
  }
  return {
    urls: { css: `${CONSOLE_ASSET_PREFIX}console.css?v=${version['console.css']}`, js: `${CONSOLE_ASSET_PREFIX}console.js?v=${version['console.js']}` },
    files,
  };
}
