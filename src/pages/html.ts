// HTML safety for server-rendered pages: every dynamic string goes through escapeHtml, and
// merchant-supplied URLs become links only when they are plain http(s) URLs.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The normalized URL when `raw` is an absolute http: or https: URL without credentials; null otherwise (javascript:, data:, relative, garbage). */
export function safeHttpUrl(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // user:pass@host links are a phishing trick ("https://shop.example@evil.example") and never needed here.
  if (url.username !== '' || url.password !== '') return null;
  return url.href;
}

/** JSON for a `<script type="application/json">` data block: `<`, `>`, `&` and line separators become \u escapes, so the text can never close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
