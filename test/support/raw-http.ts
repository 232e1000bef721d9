// A raw HTTP/1.1 client: sends exactly the bytes given (bad percent-encoding, unknown methods, huge headers), which
// fetch would refuse or fix up, and reads the whole answer.
import { connect } from 'node:net';

/** An answer as it came off the wire. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request (`Connection: close` is added, and Content-Length unless a Transfer-Encoding is given) and resolves with the answer. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  opts: {
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Sends the body this long after the head, so the server reads them as separate packets. */
    pauseBeforeBodyMs?: number;
    /** Leaves out the Host header. */
    noHost?: boolean;
  } = {},
): Promise<RawAnswer> {
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
  const headers: Record<string, string> = { ...(opts.noHost ? {} : { host: `127.0.0.1:${port}` }), connection: 'close', ...(opts.headers ?? {}) };
  if (body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(body.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      // The server may close while we still write a body it refused: what it answered still counts.
      if (chunks.length > 0) finish();
      else reject(err);
    });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        parsed[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      let rest = text.slice(split + 4);
      if (parsed['transfer-encoding'] === 'chunked') rest = dechunk(rest);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: rest });
    };
    socket.on('close', finish);
    socket.write(head);
    if (body !== undefined) {
      if (opts.pauseBeforeBodyMs === undefined) socket.write(body);
      else setTimeout(() => socket.writable && socket.write(body), opts.pauseBeforeBodyMs);
    }
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, nl), 16);
    if (!(size > 0)) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
