// The chain source kinds, like rates/providers/registry.ts: each entry opens one kind's source and the watcher
// following it from the kind's endpoint (config/chain-endpoint.ts). A new kind is its backend file, which
// exports its entry, and one line here.
import type { ChainEndpoint, ChainEndpointsByKind, ChainSourceKind } from '../config/chain-endpoint.ts';
import type { OpenedSource, SourceDeps, SourceKind } from './source-kind.ts';
import { nodeSource } from './node-source.ts';
import { electrumSource } from './light/electrum-backend.ts';
import { esploraSource } from './light/esplora-backend.ts';

/** Every kind, in the order an endpoint is matched against them. */
export const CHAIN_SOURCES: { readonly [K in ChainSourceKind]: SourceKind<ChainEndpointsByKind[K]> } = {
  rpc: nodeSource,
  electrum: electrumSource,
  esplora: esploraSource,
};

/** Opens the source an endpoint names, with the watcher that follows it. */
export function openChainSource(endpoint: ChainEndpoint, deps: SourceDeps): OpenedSource {
  for (const kind of Object.values(CHAIN_SOURCES) as Array<SourceKind<ChainEndpoint>>) {
    if (kind.urlField in endpoint) return kind.open(endpoint, deps);
  }
  throw new Error(`no chain source kind takes an endpoint with the fields ${Object.keys(endpoint).join(', ')}`);
}
