// A worker thread answering requests one reply each (address derivation, SQLite's writer): the lifecycle both
// share. The thread starts through thread-entry.mjs (so it runs from the compiled dist/ and from the sources),
// announces `{ ready: true }` once its module is loaded, and answers every request with a reply carrying the
// request's id. It keeps the process alive while it starts and while a request waits for its reply, and not
// otherwise: a CLI command whose only work left is a request must not exit (Node's exit code 13) before the
// reply, and an idle thread must not hold a finished process open. A thread that fails to start or dies fails
// every request waiting on it and is not started again: its owner falls back to doing the work itself.
import { Worker } from 'node:worker_threads';

/** What a thread answers: its readiness once, then one reply per request, with the request's id. */
export type ThreadMessage<Reply> = { ready: true } | (Reply & { id: number });

export class RequestWorker<Request extends object, Reply extends object> {
  /** Resolves true once the thread has loaded its module, false if it could not start. */
  readonly ready: Promise<boolean>;
  private readonly worker: Worker;
  private started = false;
  private ended: Error | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  /** Starts the thread running `module` (a URL of a .ts or .js file next to the caller's). */
  constructor(module: URL) {
    this.worker = new Worker(new URL('./thread-entry.mjs', import.meta.url), { workerData: { module: module.href } });
    let announce!: (ok: boolean) => void;
    this.ready = new Promise<boolean>((resolve) => (announce = resolve));
    this.worker.on('message', (message: ThreadMessage<Reply>) => {
      if ('ready' in message) {
        this.started = true;
        this.refWhileNeeded();
        return announce(true);
      }
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      this.refWhileNeeded();
      waiter.resolve(message);
    });
    this.fail = (err: Error) => {
      if (this.ended) return;
      this.ended = err;
      announce(false);
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', this.fail);
    this.worker.on('exit', (code) => this.fail(new Error(`the thread exited with code ${code}`)));
  }

  /** Ends the thread's service: `ready` answers false if it had not started, waiting requests fail with `err`. */
  private readonly fail: (err: Error) => void;

  /** Why the thread ended (it failed to start, died or was stopped), or undefined while it runs. */
  get endedWith(): Error | undefined {
    return this.ended;
  }

  /** Sends a request (its id is added here); resolves with the thread's reply, rejects if the thread ends first. */
  call(request: Request): Promise<Reply> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  /** Stops the thread; requests waiting on it fail with `reason`. */
  async terminate(reason = new Error('the thread was stopped')): Promise<void> {
    // Failed here, before the exit event, so they fail with the reason rather than an exit code.
    this.fail(reason);
    await this.worker.terminate();
  }

  private refWhileNeeded(): void {
    if (this.started && this.pending.size === 0) this.worker.unref();
    else this.worker.ref();
  }
}
