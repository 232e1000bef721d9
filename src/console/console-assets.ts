// The console's stylesheet and script, read once at start from src/console/assets and served under
// /console/assets/ with a content hash in the URL (cached by browsers, refreshed on every change).
// Loaded like the pages' assets, so console.css is served with the shared base.css in front.
import { loadStaticAssets, type PageAsset } from '../pages/page-assets.ts';
import type { ConsoleAssetUrls } from './views/layout.ts';

/** One static file. */
export type ConsoleAsset = PageAsset;

/** URL prefix of the console assets. */
export const CONSOLE_ASSET_PREFIX = '/console/assets/';

const TYPES: Record<string, string> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
};

/** Reads the console assets. */
export function loadConsoleAssets(dir: URL = new URL('./assets/', import.meta.url)): { urls: ConsoleAssetUrls; files: ReadonlyMap<string, ConsoleAsset> } {
  const { files, url } = loadStaticAssets(dir, TYPES, CONSOLE_ASSET_PREFIX);
  return { urls: { css: url('console.css'), js: url('console.js') }, files };
}
