import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { prettyLine, prettyStream } from './pretty-log.ts';

describe('log lines for a terminal', () => {
  it('show time, level, message and fields on one line instead of JSON', () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 26, 22, 20, 33, 283), pid: 1, hostname: 'vm', file: '/data/master.key', msg: 'generated a new master key' });
    expect(prettyLine(line)).toBe('22:20:33.283 WARN  generated a new master key file=/data/master.key');
  });

  it('show a request as method, path and status', () => {
    const incoming = JSON.stringify({ level: 30, time: 0, reqId: 'req-2', req: { method: 'GET', url: '/wallets', remoteAddress: '127.0.0.1' }, msg: 'incoming request' });
    const done = JSON.stringify({ level: 30, time: 0, reqId: 'req-2', res: { statusCode: 200 }, responseTime: 2.93, msg: 'request completed' });
    expect(prettyLine(incoming)).toBe('00:00:00.000 INFO  GET /wallets incoming request reqId=req-2');
    expect(prettyLine(done)).toBe('00:00:00.000 INFO  200 2.9 ms request completed reqId=req-2');
  });

  it('print an error with its stack, and show control characters in values escaped, never raw', () => {
    const line = JSON.stringify({ level: 50, time: 0, msg: 'poll failed', err: { message: 'boom', stack: 'Error: boom\n    at x' }, reason: 'evil\u001b[31mred' });
    expect(prettyLine(line)).toBe('00:00:00.000 ERROR poll failed reason=evil\\x1b[31mred\n    Error: boom\n        at x');
    expect(prettyLine('not json \u0007')).toBe('not json \\x07');
  });

  it('colour the level only when asked', () => {
    expect(prettyLine(JSON.stringify({ level: 30, time: 0, msg: 'hi' }), true)).toBe('00:00:00.000 \u001b[32mINFO \u001b[0m hi');
  });

  it('take pino output through a stream, after its redaction hook', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += String(d)));
    const log = pino({ hooks: { streamWrite: (s) => s.replace('secret', '[redacted]') } }, prettyStream(out, false));
    log.info({ url: '/refund/secret' }, 'started');
    log.warn('second');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  started url=\/refund\/\[redacted\]$/);
    expect(lines[1]).toMatch(/WARN  second$/);
  });
});
