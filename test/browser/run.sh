#!/usr/bin/env bash
# Browser suite: drives the hosted payment page in headless Chromium (playwright-core, /usr/bin/chromium).
# Screenshots land in test-results/.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "chromium not found at ${CHROMIUM_PATH:-/usr/bin/chromium} (apt-get install chromium)" >&2
  exit 1
fi
mkdir -p test-results
exec npx vitest run --config test/browser/vitest.config.ts "$@"
