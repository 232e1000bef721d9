import { request } from 'node:http';

/** One JSON call over real HTTP; unlike fetch it may send a body with GET (ops 15, 17, partner status). */
export function httpJson(method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(url, {
      method,
      headers: payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {},
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> });
        } catch (err) {
          reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}: ${String(err)}`));
        }
      });
    });
    req.end(payload);
  });
}
