// The regtest node helper lives in src/devchain (the development chain of `npm start` uses it too).
export * from '../../src/devchain/regtest-node.ts';
