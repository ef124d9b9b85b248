#!/usr/bin/env bash
# Browser tests drive Debian's chromium through Playwright; never `playwright install`.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian chromium for the browser tests..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "chromium is not installed and cannot be installed here; browser tests will be skipped." >&2
fi
