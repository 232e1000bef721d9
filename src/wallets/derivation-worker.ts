// Address derivation for the pool's refills on a worker thread (issue 16). A derivation costs about 400 µs of
// CPU; the pool took it off the request path, but refills ran on the main thread, so under sustained load every
// creation still paid one derivation on the thread that serves requests. Here refills derive on their own
// thread; the main thread only stores the results (in committed chunks, as before). Issuers that find the pool
// empty still derive inline, under the wallet lock, exactly as without a pool.
import { RequestWorker } from '../core/request-worker.ts';
import type { IssuedOutput } from './wallet-keys.ts';
import type { WalletRow } from './wallet-repository.ts';

/** A request to the thread: `pub` (one extended key) or `descriptor` is sent only the first time a key id is used. */
export interface DerivationRequest {
  keyId: number;
  pub?: string;
  descriptor?: string;
  scriptType: string;
  network: string;
  from: number;
  count: number;
}

export type DerivationReply = { addresses: IssuedOutput[] } | { error: string };

/** Derives runs of a wallet's receiving addresses on one lazily started worker thread. */
export class DerivationWorker {
  private thread: RequestWorker<DerivationRequest, DerivationReply> | undefined;
  private closed: Error | undefined;
  /** Key ids by extended public key or descriptor (and network); the key text crosses to the thread once. */
  private readonly keyIds = new Map<string, number>();
  /** Addresses asked of the thread so far (tests: a refill derives only what it stores). */
  requested = 0;

  /** Receiving addresses `from` … `from + count - 1` of the wallet, derived on the thread. */
  async derive(wallet: Pick<WalletRow, 'pub' | 'script_type' | 'network' | 'descriptor'>, from: number, count: number): Promise<IssuedOutput[]> {
    if (this.closed) throw this.closed;
    // Sources run as .ts (tests, benches), the package as compiled .js: load the thread's module in the same form.
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    this.thread ??= new RequestWorker(new URL(`./derivation-thread${ext}`, import.meta.url));
    // A thread that could not start (or died) is not started again: refills derive on the main thread.
    if (this.thread.endedWith) throw this.thread.endedWith;
    this.requested += count;
    // A descriptor wallet's key is its descriptor (parsed for its network); one extended key serves every script type.
    const descriptor = wallet.descriptor ?? undefined;
    const name = descriptor === undefined ? wallet.pub : `${wallet.network} ${descriptor}`;
    let keyId = this.keyIds.get(name);
    let sent: { pub?: string; descriptor?: string } = {};
    if (keyId === undefined) {
      keyId = this.keyIds.size + 1;
      this.keyIds.set(name, keyId);
      sent = descriptor === undefined ? { pub: wallet.pub } : { descriptor };
    }
    const reply = await this.thread.call({ keyId, ...sent, scriptType: wallet.script_type, network: wallet.network, from, count });
    if ('error' in reply) throw new Error(reply.error);
    return reply.addresses;
  }

  /** Stops the thread; pending derivations fail. */
  async close(): Promise<void> {
    this.closed = new Error('derivation thread closed');
    await this.thread?.terminate(this.closed);
  }
}
