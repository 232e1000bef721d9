import type { FastifyRequest } from 'fastify';

/** Headers a reverse proxy adds to say whom it relays for. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

function isLoopback(ip: string): boolean {
  return ip === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/**
 * True when the request comes from the machine satgate runs on: the client address (behind the proxies named in
 * SATGATE_TRUST_PROXY, the one they forward) is loopback or the server's own address on this connection. A
 * request relayed by a proxy that is not trusted says so in its forwarding headers, and is not from here even
 * though its connection is.
 */
export function fromThisMachine(request: FastifyRequest, trustsProxy: boolean): boolean {
  if (!trustsProxy && FORWARDING_HEADERS.some((h) => request.headers[h] !== undefined)) return false;
  return isLoopback(request.ip) || (request.socket.localAddress !== undefined && request.ip === request.socket.localAddress);
}
