#!/usr/bin/env bash
# Team-mode tests start a real PostgreSQL (Debian's packages) on 127.0.0.1 in a temp folder.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian postgresql for the team-mode tests..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
else
  echo "postgresql is not installed and cannot be installed here; team-mode tests will be skipped." >&2
fi
