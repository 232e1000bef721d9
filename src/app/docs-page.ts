import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

// The /docs page (Swagger UI) in satgate's name: its title, a wordmark in the top bar instead of Swagger's, and a
// little style. Everything is served as files from /docs/static, so the plugin's strict Content-Security-Policy
// (script-src 'self', no inline script) holds; the wordmark is an image the policy allows (data:).

const WORDMARK = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="32" viewBox="0 0 150 32">' +
    '<circle cx="16" cy="16" r="13" fill="#f7931a"/>' +
    '<text x="16" y="21.5" font-family="sans-serif" font-size="15" font-weight="700" fill="#fff" text-anchor="middle">s</text>' +
    '<text x="36" y="23" font-family="sans-serif" font-size="21" font-weight="600" fill="#fff">satgate</text>' +
    '</svg>',
);

const THEME_CSS = [
  '.swagger-ui .topbar { background: #1f2933; }',
  '.swagger-ui .topbar .download-url-wrapper { display: none; }',
  '.swagger-ui .info .title small.version-stamp { background: #f7931a; }',
].join('\n');

/** The options of @fastify/swagger-ui that make /docs satgate's page. */
export function docsPageOptions(): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    logo: { type: 'image/svg+xml', content: WORDMARK, href: '/docs', target: '_self' },
    theme: { title: 'satgate API', css: [{ filename: 'satgate.css', content: THEME_CSS }] },
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    staticCSP: true,
    // The plugin's policy asks browsers to upgrade every request to https, which breaks the page on a plain-http
    // server (a local install, a server behind a proxy on its own network): kept strict otherwise.
    transformStaticCSP: (header: string) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  };
}
