#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (never a downloaded browser). Install it when it is
# missing and we may (root with apt-get); otherwise say how.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser tests need Debian's chromium at /usr/bin/chromium: sudo apt-get install chromium" >&2
exit 1
