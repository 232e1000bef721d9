#!/usr/bin/env bash
# Package test (run by .ci/run and `npm run test:package`): packs satgate as npm would publish it, installs the tarball
# globally into a throwaway HOME and npm prefix (so nothing of the clone is visible: no src/, no dev dependencies such
# as bcoin or tsx), then runs what an operator runs first: --version, --help of every command in the CLI's registry
# (so a new command is covered without editing this file), and `satgate start` on the embedded database until /health
# answers, with no chain source configured (it must start and say which variables to set).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/satgate-package-XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n-- %s\n' "$*"; }

step "npm pack (prepare builds dist/)"
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
tar -tzf "$work/$tarball" | sort > "$work/files.txt"
echo "$tarball: $(wc -l < "$work/files.txt") files, $(du -k "$work/$tarball" | cut -f1) KiB"
if grep -E '^package/(src|test|bench|tools)/|\.test\.js$|fixtures' "$work/files.txt"; then
  echo "FAIL: the tarball carries sources, tests, fixtures or benches (above)"; exit 1
fi
for must in package/bin/satgate.js package/dist/cli/main.js package/README.md package/LICENSE package/docs/operations.md; do
  grep -qx "$must" "$work/files.txt" || { echo "FAIL: $must is missing from the tarball"; exit 1; }
done

step "npm install -g into a throwaway HOME and prefix"
# npm's own settings and download cache stay the machine's (registry, CA file, headers for native builds): only the
# user's home and the global install location are new.
export NPM_CONFIG_USERCONFIG="${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}"
export npm_config_cache="${npm_config_cache:-$(npm config get cache)}"
export HOME="$work/home" npm_config_prefix="$work/prefix"
mkdir -p "$HOME"
(cd "$work" && npm install -g --no-audit --no-fund "./$tarball")
satgate="$work/prefix/bin/satgate"
cd "$work"
if [ -d "$work/prefix/lib/node_modules/satgate/node_modules/bcoin" ] || [ -d "$work/prefix/lib/node_modules/bcoin" ]; then
  echo "FAIL: bcoin (a development dependency) was installed"; exit 1
fi

step "satgate --version"
version=$("$satgate" --version)
[ "$version" = "$(node -p "require('$root/package.json').version")" ] || { echo "FAIL: --version printed '$version'"; exit 1; }
echo "$version"

step "satgate <command> --help for every command"
count=0
while IFS= read -r command; do
  # shellcheck disable=SC2086 # a command path is words
  out=$("$satgate" $command --help) || { echo "FAIL: satgate $command --help exited non-zero"; exit 1; }
  grep -q '^Usage: satgate' <<<"$out" || { echo "FAIL: satgate $command --help printed no usage:"; echo "$out"; exit 1; }
  count=$((count + 1))
done < <("$satgate" --list-commands)
[ "$count" -gt 0 ] || { echo "FAIL: --list-commands listed nothing"; exit 1; }
echo "$count commands answer --help"

step "satgate start (embedded database, no chain source) serves /health"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
SATGATE_DATA_DIR="$work/data" PORT="$port" LOG_LEVEL=warn SATGATE_RATES_FILE="$root/test/package/rates.json" \
  SATGATE_RATE_PROVIDERS=file "$satgate" start > "$work/server.log" 2>&1 &
server_pid=$!
started=$(date +%s%N)
for _ in $(seq 1 300); do
  if curl -fsS "http://127.0.0.1:$port/health" > "$work/health.json" 2>/dev/null; then break; fi
  kill -0 "$server_pid" 2>/dev/null || { echo "FAIL: satgate start exited:"; cat "$work/server.log"; exit 1; }
  sleep 0.1
done
[ -s "$work/health.json" ] || { echo "FAIL: /health did not answer:"; cat "$work/server.log"; exit 1; }
echo "/health answered after $(( ($(date +%s%N) - started) / 1000000 )) ms: $(cat "$work/health.json")"
grep -q 'SATGATE_LIVE_RPC_URL' "$work/server.log" || { echo "FAIL: no paragraph naming the chain variables:"; cat "$work/server.log"; exit 1; }
[ "$(stat -c %a "$work/data/satgate.sqlite")" = 600 ] || { echo "FAIL: database file mode $(stat -c %a "$work/data/satgate.sqlite")"; exit 1; }

step "satgate start --dev without bcoin says how to get it"
if SATGATE_DATA_DIR="$work/data-dev" "$satgate" start --dev > "$work/dev.log" 2>&1; then echo "FAIL: start --dev succeeded"; exit 1; fi
grep -q 'bcoin' "$work/dev.log" || { echo "FAIL:"; cat "$work/dev.log"; exit 1; }

step "satgate backup while it runs"
SATGATE_DATA_DIR="$work/data" "$satgate" backup --to "$work/backup.sqlite"
[ -s "$work/backup.sqlite.fingerprint" ] || { echo "FAIL: no fingerprint beside the backup"; exit 1; }
SATGATE_DATA_DIR="$work/data" PORT="$port" "$satgate" doctor || true

kill "$server_pid"; wait "$server_pid" || true; server_pid=
echo; echo "package test passed"
