#!/usr/bin/env bash
# Opens an HTML report in headless Chromium, takes a screenshot, and fails when the page
# logs anything to the console or makes any network request.
#
# Usage: scripts/browser-check.sh REPORT.html [SCREENSHOT.png]
#
# How each failure is seen:
# - Before the browser, the HTML itself: no <script>, no attribute holding an address
#   (src, href, srcset...), no CSS url() or @import (the report holds all it shows).
# - Console: with --enable-logging=stderr, Chromium logs every console message of the
#   page as a `:CONSOLE` line (a blocked load, a CSP violation, a script error). The
#   report has no script, so any such line is a failure.
# - Network: Chromium's net log (--log-net-log) records every URL request with its
#   initiator. The browser's own background requests (updates, time) say "not an
#   origin"; anything the page asks for carries the page's origin ("null" for a file).
#   Any request of the page is a failure, whatever its scheme or whether it succeeded.
# Nothing leaves the machine meanwhile: every request goes to a closed port on loopback
# (--proxy-server) and no host name is resolved (--host-resolver-rules).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 REPORT.html [SCREENSHOT.png]" >&2
  exit 2
fi
page=$(realpath "$1")
shot=${2:-}
[ -f "$page" ] || { echo "browser-check: no file $1" >&2; exit 2; }

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null; then browser=$b; break; fi
  done
fi
[ -n "$browser" ] || { echo "browser-check: chromium not found (scripts/setup.sh installs it)" >&2; exit 2; }

failed=0
fail() { echo "browser-check: FAIL: $*" >&2; failed=1; }

if grep -qi '<script' "$page"; then
  fail "the page contains a <script> element"
fi
# An attribute naming an address (src, href, srcset, poster, action...), a CSS url() or
# @import. SVG's xmlns is a name, never fetched.
refs=$(grep -Eio '[a-z:-]+[[:space:]]*=[[:space:]]*["'"'"']?[[:space:]]*([a-z][a-z0-9+.-]*:)?//[^"'"'"' >]*|url\([^)]*\)|@import[^;]*' "$page" \
  | grep -Eiv '^xmlns(:[a-z]+)?[[:space:]]*=[[:space:]]*["'"'"']?http://www\.w3\.org/' || true)
if [ -n "$refs" ]; then
  fail "the page refers to other resources: $(echo "$refs" | head -5 | tr '\n' ' ')"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${shot:-$work/screenshot.png}
rm -f "$out"

status=0
timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
  --disable-background-networking --disable-component-update --disable-sync \
  --no-first-run --no-default-browser-check \
  --proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
  --user-data-dir="$work/profile" \
  --enable-logging=stderr --v=0 --log-net-log="$work/netlog.json" \
  --window-size=1400,3000 --screenshot="$out" \
  "file://$page" >"$work/stdout" 2>"$work/stderr" || status=$?
if [ "$status" -ne 0 ]; then
  tail -20 "$work/stderr" >&2
  fail "chromium exited with status $status"
fi

console=$(grep ':CONSOLE' "$work/stderr" || true)
if [ -n "$console" ]; then
  fail "console messages: $console"
fi

if [ ! -s "$work/netlog.json" ]; then
  fail "chromium wrote no net log, so requests cannot be checked"
else
  requests=$(grep '"initiator":"' "$work/netlog.json" | grep -v '"initiator":"not an origin"' \
    | grep -o '"url":"[^"]*"' | sort -u || true)
  if [ -n "$requests" ]; then
    fail "the page made network requests: $requests"
  fi
fi

if [ ! -s "$out" ]; then
  fail "no screenshot was written"
fi

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "browser-check: ok: no console message, no request; screenshot $out"
