// SOCKS5 (Tor) connections for the light clients, through the `socks` package.
import type { Socket } from 'node:net';
import { SocksClient } from 'socks';

/** A parsed `SATGATE_PROXY` (`socks5://host:port` or `socks5h://host:port`; the name is always resolved by the proxy). */
export interface ProxyConfig {
  host: string;
  port: number;
}

export function parseProxyUrl(value: string): ProxyConfig {
  const u = new URL(value);
  if (u.protocol !== 'socks5:' && u.protocol !== 'socks5h:') throw new Error('SATGATE_PROXY must be socks5://host:port');
  const port = Number(u.port || 1080);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** Opens a TCP stream to host:port through the proxy; the proxy resolves the name (so `.onion` works). */
export async function connectThroughProxy(proxy: ProxyConfig, host: string, port: number, timeoutMs: number): Promise<Socket> {
  const { socket } = await SocksClient.createConnection({
    proxy: { host: proxy.host, port: proxy.port, type: 5 },
    command: 'connect',
    destination: { host, port },
    timeout: timeoutMs,
  });
  return socket;
}
