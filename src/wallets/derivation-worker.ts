// Address derivation for the pool's refills on a worker thread (issue 16). A derivation costs about 400 µs of
// CPU; the pool took it off the request path, but refills ran on the main thread, so under sustained load every
// creation still paid one derivation on the thread that serves requests. Here refills derive on their own
// thread; the main thread only stores the results (in committed chunks, as before). Issuers that find the pool
// empty still derive inline, under the wallet lock, exactly as without a pool.
import { Worker } from 'node:worker_threads';
import type { DerivedAddress } from '../bitcoin/receive-address.ts';
import type { WalletRow } from './wallet-repository.ts';

/** A request to the thread: `pub` is sent only the first time a key id is used. */
export interface DerivationRequest {
  id: number;
  keyId: number;
  pub?: string;
  scriptType: string;
  network: string;
  from: number;
  count: number;
}

export type DerivationReply = { id: number; addresses: DerivedAddress[] } | { id: number; error: string };

/** Derives runs of a wallet's receiving addresses on one lazily started worker thread. */
export class DerivationWorker {
  private worker: Worker | undefined;
  private broken: Error | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (a: DerivedAddress[]) => void; reject: (e: Error) => void }>();
  /** Key ids by extended public key; the key text crosses to the thread once. */
  private readonly keyIds = new Map<string, number>();
  /** Addresses asked of the thread so far (tests: a refill derives only what it stores). */
  requested = 0;

  /** Receiving addresses `from` … `from + count - 1` of the wallet, derived on the thread. */
  derive(wallet: Pick<WalletRow, 'pub' | 'script_type' | 'network'>, from: number, count: number): Promise<DerivedAddress[]> {
    if (this.broken) return Promise.reject(this.broken);
    const worker = this.start();
    this.requested += count;
    let keyId = this.keyIds.get(wallet.pub);
    let pub: string | undefined;
    if (keyId === undefined) {
      keyId = this.keyIds.size + 1;
      this.keyIds.set(wallet.pub, keyId);
      pub = wallet.pub;
    }
    const id = this.nextId++;
    const request: DerivationRequest = { id, keyId, pub, scriptType: wallet.script_type, network: wallet.network, from, count };
    return new Promise<DerivedAddress[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Stops the thread; pending derivations fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.broken = new Error('derivation thread closed');
    this.failAll(this.broken);
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Sources run as .ts (tests, benches), the package as compiled .js: load the thread's module in the same form.
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const worker = new Worker(new URL('../core/thread-entry.mjs', import.meta.url), {
      workerData: { module: new URL(`./derivation-thread${ext}`, import.meta.url).href },
    });
    worker.on('message', (reply: DerivationReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply.addresses);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      // A thread that cannot start (or died) is not restarted in a loop: refills derive on the main thread.
      this.broken = err;
      this.failAll(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`derivation thread exited with code ${code}`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }
}
