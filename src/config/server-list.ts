// Light server lists as configured (SATGATE_*_ELECTRUM_URL, SATGATE_*_ESPLORA_URL): one URL or several,
// comma-separated, all of one kind. Every item is checked at start; an item that cannot work (not a URL, the
// wrong scheme, empty, listed twice) stops the start with a message naming the variable and the item.
import { parseElectrumUrl } from './electrum-url.ts';

export type ServerListKind = 'electrum' | 'esplora';

/** The URLs of a list, in the order given, or the problems that stop the start (one per bad item). */
export function parseServerList(name: string, value: string, kind: ServerListKind): { urls: string[]; problems: string[] } {
  const items = value.split(',').map((s) => s.trim());
  const urls: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const which = items.length > 1 ? ` (item ${i + 1} of ${items.length})` : '';
    if (item === '') {
      problems.push(`${name}: item ${i + 1} of the comma-separated list is empty; list URLs as url1,url2`);
      return;
    }
    const problem = kind === 'electrum' ? electrumProblem(item) : esploraProblem(item);
    if (problem !== null) {
      problems.push(`${name}: ${problem}: ${JSON.stringify(item)}${which}`);
      return;
    }
    const key = item.replace(/\/+$/, '').toLowerCase();
    if (seen.has(key)) {
      problems.push(`${name}: ${JSON.stringify(item)} is listed twice${which}`);
      return;
    }
    seen.add(key);
    urls.push(item);
  });
  return { urls, problems };
}

function electrumProblem(item: string): string | null {
  try {
    parseElectrumUrl(item);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function esploraProblem(item: string): string | null {
  let u: URL;
  try {
    u = new URL(item);
  } catch {
    return 'not a URL such as https://mempool.space/api';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'an Esplora URL starts with http:// or https://';
  if (u.search !== '' || u.hash !== '') return 'an Esplora URL is the API base, without ?query or #fragment';
  return null;
}
