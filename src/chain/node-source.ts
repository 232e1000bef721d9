// The node source kind: a Bitcoin node's JSON-RPC, scanned block by block (chain-watcher.ts), with the node's
// own announcements where it makes them (Bitcoin Core's ZMQ, bcoin's websocket) hurrying the watcher.
import type { RpcSourceEndpoint } from '../config/chain-endpoint.ts';
import { RpcClient } from './rpc-client.ts';
import { ChainWatcher } from './chain-watcher.ts';
import { RpcChainSource } from './chain-source.ts';
import { subscribeBcoin, type PushSubscription } from './bcoin-push.ts';
import { subscribeZmq } from './zmq-subscriber.ts';
import type { SourceDeps, SourceKind } from './source-kind.ts';

export const nodeSource: SourceKind<RpcSourceEndpoint> = {
  urlField: 'rpcUrl',
  open(endpoint, deps) {
    const { store, watched, clock, log, pollMs, network } = deps;
    const rpc = new RpcClient({ url: endpoint.rpcUrl, cookieFile: endpoint.cookieFile, fallbackFeeRate: deps.fallbackFeeRate, timeoutMs: 30_000 });
    const watcher = new ChainWatcher({ rpc, store, watched, clock, log, pollMs, network, sourceLabel: endpoint.devChain ? 'devchain' : 'rpc' });
    return {
      source: new RpcChainSource(rpc),
      watcher,
      subscribe: (keep) => subscribeNode(deps, { rpc, url: endpoint.rpcUrl, zmqUrl: endpoint.zmqUrl ?? null, watcher }, keep),
    };
  },
};

/**
 * Subscribes to the node's own announcements. With a ZMQ URL (Bitcoin Core's `-zmqpubrawtx` and
 * `-zmqpubhashblock`), through our ZMTP subscriber; otherwise, when the node is bcoin, through its websocket.
 * Either way a transaction's bytes go to the watcher (recorded at once when they pay a watched script) and
 * a block wakes it; the timer keeps polling as the safety net.
 */
async function subscribeNode(
  deps: SourceDeps,
  node: { rpc: RpcClient; url: string; zmqUrl: string | null; watcher: ChainWatcher },
  keep: (subscription: PushSubscription) => void,
): Promise<void> {
  const on = { tx: (raw: Uint8Array) => void node.watcher.pushTx(raw), block: () => node.watcher.wake() };
  if (node.zmqUrl) {
    keep(
      subscribeZmq({
        url: node.zmqUrl,
        topics: ['rawtx', 'hashblock'],
        onMessage: (m) => (m.topic === 'rawtx' ? on.tx(m.body) : on.block()),
        // Announcements sent while the connection was down are lost: look once.
        onReconnect: on.block,
        log: deps.log,
      }),
    );
    return;
  }
  try {
    const info = await node.rpc.call<{ subversion?: string }>('getnetworkinfo');
    if (!/bcoin/i.test(info.subversion ?? '')) return;
    keep(subscribeBcoin(node.url, on, deps.log));
  } catch (err) {
    deps.log.debug({ chain: deps.id, err: err instanceof Error ? err.message : String(err) }, 'node events unavailable; polling only');
  }
}
