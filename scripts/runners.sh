#!/usr/bin/env bash
# Builds the chakshu-action binaries Chakshu serves to its workflows
# (DESIGN §2 step 5): static (CGO_ENABLED=0), -trimpath, stripped, one per
# platform, each with a gzip copy (what the server sends to clients that
# accept gzip) and its SHA-256. `make build`, deploy/Dockerfile and the tests
# (internal/runnerbin/runnerbintest) all build them here, so the flags live in
# one place.
#
#   scripts/runners.sh OUTDIR VERSION [GOOS/GOARCH ...]   (default: linux/amd64 linux/arm64)
#   scripts/runners.sh OUTDIR VERSION --host
#
# OUTDIR gets chakshu-action-VERSION-GOOS-GOARCH, the same with .gz, and
# .sha256 (sha256sum format, of the uncompressed binary).
#
# --host (what `make build` uses for the sandbox) builds only this machine's
# platform, with the flags `go build` gives bin/chakshu (no -trimpath, cgo as
# the environment has it), so every package the runner shares with the server
# comes from the build cache instead of being compiled again. Its runner is
# for this machine only; release archives and the container image use the
# default form.
set -euo pipefail
usage="usage: scripts/runners.sh OUTDIR VERSION [--host | GOOS/GOARCH ...]"
out=${1:?$usage}
ver=${2:?$usage}
shift 2
host=0
if [ "${1:-}" = --host ]; then
  host=1
  shift
  set -- "$(go env GOOS)/$(go env GOARCH)"
fi
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64)
case "$ver" in *[!A-Za-z0-9._+-]*|"") echo "runners.sh: version $ver: use letters, digits and . _ + -" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
mkdir -p "$out"
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  name="chakshu-action-$ver-$os-$arch"
  if [ $host = 1 ]; then
    go build -p "${GOPAR:-2}" -buildvcs=false \
      -ldflags "-X github.com/chakshu-dev/chakshu/internal/version.Version=$ver" \
      -o "$out/$name.tmp" ./cmd/chakshu-action
  else
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -p "${GOPAR:-2}" -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/chakshu-dev/chakshu/internal/version.Version=$ver" \
      -o "$out/$name.tmp" ./cmd/chakshu-action
  fi
  mv "$out/$name.tmp" "$out/$name"
  gzip -9 -n -c "$out/$name" > "$out/$name.gz.tmp"
  mv "$out/$name.gz.tmp" "$out/$name.gz"
  (cd "$out" && sha256sum "$name" > "$name.sha256")
done
