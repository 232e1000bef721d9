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
