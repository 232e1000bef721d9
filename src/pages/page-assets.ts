// The page stylesheet and script, read once at start from src/pages/assets and served under
// /pay/assets with a content hash in the URL, so browsers may cache them while updates still show.
// common.js (the browser helpers page.js and form.js share) is served in front of those two scripts, as
// base.css is in front of each stylesheet: a page still loads one script, and the CSP stays `script-src 'self'`.
// `loadStaticAssets` is the shared loader: the merchant console (src/console/console-assets.ts) uses it too.

import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { PageAssetUrls } from './payment-page.ts';

/** One static file of the pages. */
export interface PageAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** The loaded assets and the URLs pages link to. */
export interface PageAssets {
  urls: PageAssetUrls;
  /** By file name (`page.css`, `page.js`). */
  files: ReadonlyMap<string, PageAsset>;
}

/** URL prefix of the page assets. */
export const ASSET_PREFIX = '/pay/assets/';

/** The stylesheet both the pages and the console build on (tokens, reset, body text). */
const BASE_CSS = new URL('./assets/base.css', import.meta.url);

const TYPES: Record<string, string> = {
  'page.css': 'text/css; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'refund.js': 'text/javascript; charset=utf-8',
  'form.js': 'text/javascript; charset=utf-8',
};

/** The shared browser helpers, served in front of the scripts that use them (by file name). */
const IN_FRONT: Record<string, string> = { 'page.js': 'common.js', 'form.js': 'common.js' };

/**
 * Reads the files named in `types` (name → content type) from `dir`, each stylesheet with base.css in front
 * (one same-origin request per page, no @import) and each file named in `inFront` with that file of `dir` in
 * front, and returns them with content-hashed URLs under `prefix`.
 */
export function loadStaticAssets(
  dir: URL,
  types: Readonly<Record<string, string>>,
  prefix: string,
  inFront: Readonly<Record<string, string>> = {},
): { files: ReadonlyMap<string, PageAsset>; url: (name: string) => string } {
  const files = new Map<string, PageAsset>();
  const version: Record<string, string> = {};
  const base = readFileSync(BASE_CSS);
  for (const [name, contentType] of Object.entries(types)) {
    const own = readFileSync(new URL(name, dir));
    const shared = inFront[name];
    const front = name.endsWith('.css') ? base : shared !== undefined ? readFileSync(new URL(shared, dir)) : undefined;
    const body = front ? Buffer.concat([front, own]) : own;
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    files.set(name, { body, contentType, etag: `"${hash}"` });
    version[name] = hash;
  }
  return { files, url: (name) => `${prefix}${name}?v=${version[name]}` };
}

/** Reads the page assets from disk (from `dir`, default src/pages/assets). */
export function loadPageAssets(dir: URL = new URL('./assets/', import.meta.url)): PageAssets {
  const { files, url } = loadStaticAssets(dir, TYPES, ASSET_PREFIX, IN_FRONT);
  return {
    urls: { css: url('page.css'), js: url('page.js'), refundJs: url('refund.js'), formJs: url('form.js') },
    files,
  };
}
