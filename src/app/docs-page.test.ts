import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';

describe('/docs', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it("is satgate's page, not stock Swagger UI, under a strict Content-Security-Policy that works over plain http", async () => {
    t = await createTestApp('sqlite');
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>satgate API</title>');
    expect(page.body).not.toContain('Swagger UI</title>');
    expect(page.body).toContain('static/theme/satgate.css');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|upgrade-insecure-requests/);
    // No inline script: the page's scripts are files the policy's 'self' admits.
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/);
    const css = await t.app.inject({ method: 'GET', url: '/docs/static/theme/satgate.css' });
    expect(css.statusCode).toBe(200);
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain('data:image/svg+xml;base64,');
    expect(Buffer.from(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body)![1]!, 'base64').toString()).toContain('satgate');
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).json().info.title).toBe('satgate');
  });
});
