/** The two chains a service watches: `live` (mainnet) and `test` (the sandbox network). Same as wallet mode. */
export type ChainId = 'live' | 'test';
