#!/usr/bin/env bash
# Times a new user's first run: `git clone`, then `make run`, until the
# sandbox answers (its banner printed and /readyz 200), with empty Go build,
# Go module and npm caches (temporary folders, removed afterwards), so every
# module, package and portal dependency is fetched and built as on a fresh
# machine. Prints the figure; docs/benchmarks.md keeps it.
#
#   scripts/firstrun.sh [REPO [REV]]    (default: this checkout, its HEAD)
#
# Needs the network to the Go module proxy and the npm registry, like a fresh
# machine. Ports: 127.0.0.1:$FIRSTRUN_PORT and the next one (default 18180).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$here}
rev=${2:-$(git -C "$here" rev-parse HEAD)}
port=${FIRSTRUN_PORT:-18180}
limit=${FIRSTRUN_LIMIT:-1200}

work=$(mktemp -d "${TMPDIR:-/tmp}/chakshu-firstrun.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  chmod -R u+w "$work" 2>/dev/null || true # the module cache is read-only
  rm -rf "$work"
}
trap cleanup EXIT

export GOCACHE=$work/go-build GOMODCACHE=$work/go-mod npm_config_cache=$work/npm
export CHAKSHU_DATA_DIR=$work/data CHAKSHU_ADDR=127.0.0.1:$port CHAKSHU_INTERNAL_ADDR=127.0.0.1:$((port + 1))

load=$(cut -d" " -f1-3 /proc/loadavg)
start=$(date +%s.%N)
git clone -q "$src" "$work/chakshu"
git -C "$work/chakshu" checkout -q "$rev"
cd "$work/chakshu"
# Its own process group, so the cleanup stops make and chakshu alike.
setsid make run >"$work/run.log" 2>&1 &
pid=$!

ready=""
while :; do
  now=$(date +%s.%N)
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "firstrun: make run exited before the sandbox was ready; its log:" >&2
    tail -40 "$work/run.log" >&2
    exit 1
  fi
  if grep -q "running in sandbox mode" "$work/run.log" &&
    curl -fsS -o /dev/null "http://$CHAKSHU_INTERNAL_ADDR/readyz" 2>/dev/null &&
    curl -fsS -o /dev/null "http://$CHAKSHU_ADDR/" 2>/dev/null; then
    ready=$now
    break
  fi
  if awk -v a="$start" -v b="$now" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
    echo "firstrun: not ready after ${limit}s; the log's end:" >&2
    tail -40 "$work/run.log" >&2
    exit 1
  fi
  sleep 1
done

secs=$(awk -v a="$start" -v b="$ready" 'BEGIN { printf "%.0f", b - a }')
echo "first run: ${secs} s from git clone to a ready sandbox (empty Go and npm caches; $(nproc) cores; $(date -u +%F); load average at the start: $load)"
