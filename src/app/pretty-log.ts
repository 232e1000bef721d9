import { Writable } from 'node:stream';

// Log lines for a person at a terminal: pino writes JSON, which suits collectors but not a newcomer watching
// `npm start`. This turns each line into "time LEVEL message key=value …". It sees lines after redaction (pino's
// streamWrite hook runs first), and it escapes control characters in values: a log line can quote a URL or a
// remote server's error text, which must not recolour or rewrite the terminal.

const LEVELS: Record<number, [name: string, colour: string]> = {
  10: ['TRACE', '90'],
  20: ['DEBUG', '36'],
  30: ['INFO ', '32'],
  40: ['WARN ', '33'],
  50: ['ERROR', '31'],
  60: ['FATAL', '35'],
};

const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'req', 'res', 'responseTime', 'err']);
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

const visible = (text: string) => text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? visible(v) : visible(JSON.stringify(v));
  return visible(JSON.stringify(v) ?? String(v));
}

function time(ms: unknown): string {
  const d = typeof ms === 'number' ? new Date(ms) : new Date();
  return d.toISOString().slice(11, 23);
}

/** One JSON log line as a readable line (several, for an error's stack); a line that is not JSON comes back as is. */
export function prettyLine(line: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return visible(line);
    entry = parsed as Record<string, unknown>;
  } catch {
    return visible(line);
  }
  const [name, code] = LEVELS[entry.level as number] ?? [String(entry.level ?? '?').padEnd(5), '0'];
  const level = colour ? `\u001b[${code}m${name}\u001b[0m` : name;
  const parts = [time(entry.time), level];
  const req = entry.req as { method?: unknown; url?: unknown } | undefined;
  const res = entry.res as { statusCode?: unknown } | undefined;
  if (req && typeof req === 'object') parts.push(visible(`${String(req.method)} ${String(req.url)}`));
  if (res && typeof res === 'object') {
    const ms = typeof entry.responseTime === 'number' ? ` ${entry.responseTime.toFixed(1)} ms` : '';
    parts.push(`${String(res.statusCode)}${ms}`);
  }
  if (typeof entry.msg === 'string') parts.push(visible(entry.msg));
  for (const [k, v] of Object.entries(entry)) if (!OMITTED.has(k)) parts.push(`${visible(k)}=${value(v)}`);
  const err = entry.err as { message?: unknown; stack?: unknown } | undefined;
  let out = parts.join(' ');
  if (err && typeof err === 'object') {
    const stack = typeof err.stack === 'string' ? err.stack : String(err.message);
    out += `\n${stack.split('\n').map((l) => `    ${visible(l)}`).join('\n')}`;
  }
  return out;
}

/** A stream for pino that writes each JSON line it is given to `out` as a readable line. */
export function prettyStream(out: NodeJS.WritableStream, colour: boolean): Writable {
  let pending = '';
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') out.write(`${prettyLine(line, colour)}\n`);
      done();
    },
  });
}

/** Where this process's logs go: readable lines when stdout is a terminal, else pino's JSON lines on stdout. */
export function terminalLogStream(): Writable | undefined {
  return process.stdout.isTTY ? prettyStream(process.stdout, !process.env.NO_COLOR) : undefined;
}
