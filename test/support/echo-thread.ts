// A thread for src/core/request-worker.test.ts: answers `{ echo }` with `{ echoed }` after `delayMs`, in the order
// the requests finish; exits on `{ exit }` without answering.
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (msg: { id: number; echo?: string; delayMs?: number; exit?: number }) => {
  if (msg.exit !== undefined) process.exit(msg.exit);
  setTimeout(() => parentPort!.postMessage({ id: msg.id, echoed: msg.echo }), msg.delayMs ?? 0);
});
parentPort!.postMessage({ ready: true });
