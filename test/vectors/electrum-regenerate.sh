#!/usr/bin/env bash
# Regenerates test/vectors/electrum-<kind>.json: the first 20 receiving addresses Electrum
# derives for one watch-only key of each kind. Needs Debian's `electrum` and python3; runs offline.
# The keys are the BIP44/49/84 account keys (coin 0 for mainnet, coin 1 for test networks) of the
# BIP39 test mnemonic "abandon x11 about"; satgate's own code produced them, Electrum checks the rest.
set -euo pipefail
cd "$(dirname "$0")"
version="$(electrum version --offline)"

regen() {
  local kind="$1" key="$2" path="$3" net_flag="$4" script_type="$5"
  local dir
  dir="$(mktemp -d /tmp/satgate-electrum-XXXXXX)"
  local restore=(electrum --offline -D "$dir" $net_flag restore "$key")
  local wallet="$dir/wallets/default_wallet"
  [ -n "$net_flag" ] && wallet="$dir/testnet/wallets/default_wallet"
  local list=(electrum --offline -D "$dir" $net_flag -w "$wallet" listaddresses --receiving)
  "${restore[@]}" >/dev/null
  local addresses
  addresses="$("${list[@]}")"
  rm -rf "$dir"
  KIND="$kind" KEY="$key" KPATH="$path" NET="${net_flag:-mainnet}" ST="$script_type" VERSION="$version" \
  RESTORE="${restore[*]//"$dir"/DIR}" LIST="${list[*]//"$dir"/DIR}" ADDRS="$addresses" python3 - <<'PY'
import json, os
e = os.environ
addresses = json.loads(e["ADDRS"])
assert len(addresses) >= 20, len(addresses)
doc = {
    "source": (
        f"Electrum {e['VERSION']} (Debian package), offline, watch-only restore of the key; "
        f"commands (DIR is a fresh temporary directory): `{e['RESTORE']}` then `{e['LIST']}`; "
        "regenerate with test/vectors/electrum-regenerate.sh"
    ),
    "electrum_version": e["VERSION"],
    "kind": e["KIND"],
    "key": e["KEY"],
    "key_origin": f"BIP39 mnemonic 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', path {e['KPATH']}",
    "electrum_network": "testnet" if e["NET"] == "--testnet" else "mainnet",
    "script_type": e["ST"],
    "receiving_addresses": addresses[:20],
}
with open(f"electrum-{e['KIND']}.json", "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY
  echo "electrum-$kind.json"
}

regen xpub xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj "m/44'/0'/0'" "" p2pkh
regen ypub ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP "m/49'/0'/0'" "" p2sh-p2wpkh
regen zpub zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs "m/84'/0'/0'" "" p2wpkh
regen tpub tpubDC5FSnBiZDMmhiuCmWAYsLwgLYrrT9rAqvTySfuCCrgsWz8wxMXUS9Tb9iVMvcRbvFcAHGkMD5Kx8koh4GquNGNTfohfk7pgjhaPCdXpoba "m/44'/1'/0'" --testnet p2pkh
regen upub upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY "m/49'/1'/0'" --testnet p2sh-p2wpkh
regen vpub vpub5Y6cjg78GGuNLsaPhmYsiw4gYX3HoQiRBiSwDaBXKUafCt9bNwWQiitDk5VZ5BVxYnQdwoTyXSs2JHRPAgjAvtbBrf8ZhDYe2jWAqvZVnsc "m/84'/1'/0'" --testnet p2wpkh
