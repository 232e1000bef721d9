// autocannon's histogram keeps whole milliseconds, so at a p50 of 2 ms a p99/p50 ratio moves by half a unit
// with one millisecond of rounding. autocannon loads this file in its worker thread for every connection
// (`setupClient`): it keeps each 2xx response's latency in fractional milliseconds and, when the connection is
// closed at the end of the run, posts them on a BroadcastChannel for bench/api.ts to read. CommonJS because
// autocannon's worker loads it with require().
'use strict';
const { BroadcastChannel } = require('node:worker_threads');

const channel = new BroadcastChannel('satgate-bench-latency');
channel.unref();

module.exports = function setupClient(client) {
  const run = client.opts.initialContext && client.opts.initialContext.latencyRun;
  if (typeof run !== 'string') return;
  const samples = [];
  client.on('response', (statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(ms);
  });
  client.on('done', () => channel.postMessage({ run, samples: Float64Array.from(samples) }));
};
