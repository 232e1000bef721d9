// Runs in SQLite's writer thread (sqlite-writer.ts): a connection per database file the process opened, on which
// it commits the batches the main thread sends, each write by name (sqlite-write-ops.ts) in its own savepoint.
import { parentPort } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { ThreadMessage } from '../core/request-worker.ts';
import type { SqliteConnection } from './database.ts';
import { StatementCache } from './sqlite-statements.ts';
import { commitWrites } from './sqlite-write-ops.ts';
import { configureWritingConnection, statementConnection, toWire, type WireOutcome, type WriterReply, type WriterRequest } from './sqlite-writer.ts';

const connections = new Map<number, { raw: BetterSqlite3.Database; conn: SqliteConnection }>();
const port = parentPort!;

type Message = WriterRequest & { id: number };

function handle(msg: Message): WriterReply {
  if ('open' in msg) {
    const raw = new BetterSqlite3(msg.file, { fileMustExist: true });
    configureWritingConnection(raw);
    connections.set(msg.open, { raw, conn: statementConnection(new StatementCache(raw)) });
    return {};
  }
  if ('close' in msg) {
    connections.get(msg.close)?.raw.close();
    connections.delete(msg.close);
    return {};
  }
  const c = connections.get(msg.conn);
  if (!c) throw new Error(`the writer thread has no connection ${msg.conn}`);
  const outcomes = commitWrites(c.raw, c.conn, msg.batch);
  return { outcomes: outcomes.map((o): WireOutcome => (o.ok ? o : { ok: false, error: toWire(o.error) })) };
}

port.on('message', (msg: Message) => {
  let reply: WriterReply;
  try {
    reply = handle(msg);
  } catch (err) {
    reply = { failed: toWire(err) };
  }
  try {
    port.postMessage({ ...reply, id: msg.id } satisfies ThreadMessage<WriterReply>);
  } catch (err) {
    // A result that cannot cross (not structured-cloneable): the writes are committed, their callers must not wait.
    port.postMessage({ id: msg.id, failed: toWire(new Error(`the batch committed but its results could not be sent: ${toWire(err).message}`)) } satisfies ThreadMessage<WriterReply>);
  }
});
port.postMessage({ ready: true } satisfies ThreadMessage<WriterReply>);
