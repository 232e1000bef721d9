// The page stylesheet and script, read once at start from src/pages/assets and served under
// /pay/assets with a content hash in the URL, so browsers may cache them while updates still show.

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

const TYPES: Record<string, string> = {
  'page.css': 'text/css; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'form.js': 'text/javascript; charset=utf-8',
};

/** Reads the page assets from disk (from `dir`, default src/pages/assets). */
export function loadPageAssets(dir: URL = new URL('./assets/', import.meta.url)): PageAssets {
  const files = new Map<string, PageAsset>();
  const version: Record<string, string> = {};
  for (const [name, contentType] of Object.entries(TYPES)) {
    const body = readFileSync(new URL(name, dir));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    files.set(name, { body, contentType, etag: `"${hash}"` });
    version[name] = hash;
  }
  return {
    urls: { css: `${ASSET_PREFIX}page.css?v=${version['page.css']}`, js: `${ASSET_PREFIX}page.js?v=${version['page.js']}`,
      formJs: `${ASSET_PREFIX}form.js?v=${version['form.js']}`,
    },
    files,
  };
}
