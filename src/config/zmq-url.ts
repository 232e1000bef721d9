// ZeroMQ endpoints as configured (SATGATE_*_ZMQ_URL): checked at start, used by the ZMTP subscriber.

/** Parses `tcp://host:port` (IPv6 hosts in brackets), the form Bitcoin Core's `-zmqpub*` options take. */
export function parseZmqUrl(url: string): { host: string; port: number } {
  const m = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[^:/[\]]+):(\d{1,5})\/?$/.exec(url);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) throw new Error(`${JSON.stringify(url)} is not a ZeroMQ TCP endpoint such as tcp://127.0.0.1:28332`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
