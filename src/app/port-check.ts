import { createServer } from 'node:net';

/** Why the server cannot listen where it is configured to (`code` from listen), naming the settings to change. */
export function listenProblem(code: string, host: string, port: number, runningHere: string | null): string {
  if (code === 'EADDRINUSE') {
    const who = runningHere ? `: the satgate server of this data directory already serves there (${runningHere})` : '';
    return (
      `port ${port} on ${host} is already in use (EADDRINUSE)${who}. Set PORT to a free port (or HOST to another ` +
      'address), or stop what listens there; a second satgate beside the first needs its own PORT and its own ' +
      'SATGATE_DATA_DIR'
    );
  }
  if (code === 'EACCES') return `cannot listen on port ${port} (EACCES: ports below 1024 need privileges): set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${host} (EADDRNOTAVAIL: not an address of this machine): set HOST to one of its addresses, or 0.0.0.0`;
  return `cannot listen on ${host}:${port} (${code}): check HOST and PORT`;
}

/**
 * Why host:port cannot be listened on (an error code such as EADDRINUSE), or null when it can: asked by binding it
 * for a moment. Checked before the data directory is touched, so a start that cannot serve leaves nothing behind;
 * the real listen can still lose a race, and then says the same.
 */
export async function cannotListen(host: string, port: number): Promise<string | null> {
  const probe = createServer();
  return new Promise<string | null>((resolve) => {
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}
