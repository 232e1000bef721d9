// Electrum server URLs as configured (SATGATE_*_ELECTRUM_URL): checked at start, used by the Electrum client.

/** `tcp://host:port` or `ssl://host:port`, with `?fingerprint=<sha256 hex>` to pin a certificate. */
export interface ElectrumEndpoint {
  tls: boolean;
  host: string;
  port: number;
  /** Uppercase hex without separators. */
  fingerprint: string | null;
}

export function parseElectrumUrl(value: string): ElectrumEndpoint {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${JSON.stringify(value)} is not a URL such as tcp://host:50001 or ssl://host:50002`);
  }
  if (u.protocol !== 'tcp:' && u.protocol !== 'ssl:' && u.protocol !== 'tls:') throw new Error('an Electrum URL starts with tcp:// or ssl://');
  if (!u.port) throw new Error('an Electrum URL needs a port, e.g. ssl://host:50002');
  const raw = u.searchParams.get('fingerprint');
  const fingerprint = raw === null ? null : raw.replace(/:/g, '').toUpperCase();
  if (fingerprint !== null && !/^[0-9A-F]{64}$/.test(fingerprint)) throw new Error('fingerprint must be the certificate\'s SHA-256, 64 hex digits');
  if (fingerprint !== null && u.protocol === 'tcp:') throw new Error('a certificate fingerprint needs ssl://');
  return { tls: u.protocol !== 'tcp:', host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port), fingerprint };
}
