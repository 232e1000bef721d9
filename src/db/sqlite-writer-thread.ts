// Runs in SQLite's writer thread (sqlite-writer.ts): a connection per database file the process opened, on which
// it commits the batches the main thread sends, each write by name (sqlite-write-ops.ts) in its own savepoint.
import { parentPort } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { SqliteConnection } from './database.ts';
import { StatementCache } from './sqlite-statements.ts';
import { commitTogether } from './sqlite-write-batch.ts';
import { SQLITE_WRITE_OPS } from './sqlite-write-ops.ts';
import { configureWritingConnection, statementConnection, toWire, type WireOutcome, type WriterReply, type WriterRequest } from './sqlite-writer.ts';

const connections = new Map<number, { raw: BetterSqlite3.Database; conn: SqliteConnection }>();
const port = parentPort!;

function handle(msg: WriterRequest): WriterReply {
  if ('open' in msg) {
    const raw = new BetterSqlite3(msg.file, { fileMustExist: true });
    configureWritingConnection(raw);
    connections.set(msg.open, { raw, conn: statementConnection(new StatementCache(raw)) });
    return { id: msg.id };
  }
  if ('close' in msg) {
    connections.get(msg.close)?.raw.close();
    connections.delete(msg.close);
    return { id: msg.id };
  }
  const c = connections.get(msg.conn);
  if (!c) throw new Error(`the writer thread has no connection ${msg.conn}`);
  const outcomes = commitTogether(
    c.raw,
    msg.batch.map((w) => () => SQLITE_WRITE_OPS[w.op](c.conn, w.args as never)),
  );
  return { id: msg.id, outcomes: outcomes.map((o): WireOutcome => (o.ok ? o : { ok: false, error: toWire(o.error) })) };
}

port.on('message', (msg: WriterRequest) => {
  let reply: WriterReply;
  try {
    reply = handle(msg);
  } catch (err) {
    reply = { id: msg.id, failed: toWire(err) };
  }
  try {
    port.postMessage(reply);
  } catch (err) {
    // A result that cannot cross (not structured-cloneable): the writes are committed, their callers must not wait.
    port.postMessage({ id: msg.id, failed: toWire(new Error(`the batch committed but its results could not be sent: ${toWire(err).message}`)) } satisfies WriterReply);
  }
});
port.postMessage({ ready: true } satisfies WriterReply);
