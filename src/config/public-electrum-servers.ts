// Public Electrum servers for mainnet over TLS, used only when the operator asks (SATGATE_LIVE_LIGHT=public).
// Data, not code: host names with a TLS port from Electrum's own published list, without .onion hosts (they
// need SATGATE_PROXY) and bare IP addresses (no operator to tell apart). Several are picked at random from
// different operators at each start. Servers come and go: refresh this list from the source now and then.

export const PUBLIC_ELECTRUM_SOURCE = {
  url: 'https://github.com/spesmilo/electrum/blob/400934b77150f8223d0a30e1feb1cc21fc1e597a/electrum/chains/servers.json',
  retrieved: '2026-11-27',
} as const;

/** `ssl://host:port`, as Electrum's list gives them ("s" ports). */
export const PUBLIC_ELECTRUM_SERVERS: readonly string[] = [
  'ssl://electrum.blockstream.info:50002',
  'ssl://electrum.bitaroo.net:50002',
  'ssl://electrum.emzy.de:50002',
  'ssl://electrum.qtornado.com:50002',
  'ssl://fortress.qtornado.com:443',
  'ssl://electrum.hodlister.co:50002',
  'ssl://electrumx.erbium.eu:50002',
  'ssl://electrum.jochen-hoenicke.de:50006',
  'ssl://fulcrum.grey.pw:51002',
  'ssl://fulcrum.sethforprivacy.com:50002',
  'ssl://bitcoin.lu.ke:50002',
  'ssl://bitcoin.aranguren.org:50002',
  'ssl://electrum.dcn.io:50002',
  'ssl://btc.electroncash.dk:60002',
  'ssl://e.keff.org:50002',
  'ssl://e2.keff.org:50002',
  'ssl://electrum.pabu.io:50002',
  'ssl://electrumx.schulzemic.net:50002',
  'ssl://tardis.bauerj.eu:50002',
  'ssl://xtrum.com:50002',
  'ssl://hodlers.beer:50002',
  'ssl://btc.ocf.sh:50002',
  'ssl://blkhub.net:50002',
  'ssl://electrum.hsmiths.com:50002',
  'ssl://elx.bitske.com:50002',
  'ssl://alviss.coinjoined.com:50002',
];

/** The operator of a server: its registrable domain, as far as the last two labels tell (e.qtornado.com → qtornado.com). */
export function operatorOf(url: string): string {
  return new URL(url).hostname.toLowerCase().split('.').slice(-2).join('.');
}

/** `count` servers at random, no two from the same operator. */
export function pickPublicServers(count: number, random: () => number = Math.random): string[] {
  const pool = [...PUBLIC_ELECTRUM_SERVERS];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const picked: string[] = [];
  const operators = new Set<string>();
  for (const url of pool) {
    if (picked.length >= count) break;
    if (operators.has(operatorOf(url))) continue;
    operators.add(operatorOf(url));
    picked.push(url);
  }
  return picked;
}
