// Headless Chromium for the browser suite, and a watch on what a page does wrong.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where screenshots go (git-ignored). */
export const RESULTS_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));

/** Launches the Debian Chromium headless, with nothing that reaches the network by itself. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What a page did that a test should know about. */
export interface PageWatch {
  /** Messages of every alert/confirm/prompt (dismissed at once). */
  dialogs: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Content-Security-Policy violations: "directive blocked-uri". */
  cspViolations(): Promise<string[]>;
}

/** Starts watching `page` for dialogs, errors and CSP violations; call before the first navigation. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  // Init scripts run through the DevTools protocol, outside the page's CSP. (Strings: the suite has no DOM types.)
  await page.addInitScript(
    "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
  );
  return {
    dialogs,
    errors,
    cspViolations: () => page.evaluate<string[]>('window.__cspViolations || []'),
  };
}

/** Marks the current document so a later check can tell it was not reloaded. */
export async function markDocument(page: Page): Promise<string> {
  const mark = `m${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  await page.evaluate(`window.__noReloadMark = ${JSON.stringify(mark)}`);
  return mark;
}

/** True when the document still carries the mark (no reload or navigation happened). */
export async function stillMarked(page: Page, mark: string): Promise<boolean> {
  return page.evaluate<boolean>(`window.__noReloadMark === ${JSON.stringify(mark)}`);
}

/** True when the page needs no sideways scrolling. */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/** Waits until the image with this id has loaded and answers its natural width (0 when it failed). */
export async function loadedImageWidth(page: Page, id: string): Promise<number> {
  return page.evaluate<number>(
    `(async () => { const img = document.getElementById(${JSON.stringify(id)}); await img.decode().catch(() => {}); return img.complete ? img.naturalWidth : 0; })()`,
  );
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One rule axe-core finds broken, with its impact and the elements it names. */
export interface AxeViolation {
  id: string;
  impact: string;
  nodes: string[];
}

/** axe-core's violations on the page, every impact (callers that tolerate minor ones filter). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Through the DevTools protocol, which the page's CSP does not govern (the pages run no inline code).
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
  );
}
