#!/usr/bin/env bash
# Builds the chakshu-action binaries Chakshu serves to its workflows
# (DESIGN §2 step 5): static (CGO_ENABLED=0), -trimpath, stripped, one per
# platform, each with a gzip copy (what the server sends to clients that
# accept gzip) and its SHA-256. `make build`, deploy/Dockerfile and the tests
# (internal/runnerbin/runnerbintest) all build them here, so the flags live in
# one place.
#
#   scripts/runners.sh OUTDIR VERSION [GOOS/GOARCH ...]   (default: linux/amd64 linux/arm64)
#
# OUTDIR gets chakshu-action-VERSION-GOOS-GOARCH, the same with .gz, and
# .sha256 (sha256sum format, of the uncompressed binary).
set -euo pipefail
out=${1:?usage: scripts/runners.sh OUTDIR VERSION [GOOS/GOARCH ...]}
ver=${2:?usage: scripts/runners.sh OUTDIR VERSION [GOOS/GOARCH ...]}
shift 2
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64)
case "$ver" in *[!A-Za-z0-9._+-]*|"") echo "runners.sh: version $ver: use letters, digits and . _ + -" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
mkdir -p "$out"
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  name="chakshu-action-$ver-$os-$arch"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -p "${GOPAR:-2}" -trimpath -buildvcs=false \
    -ldflags "-s -w -X github.com/chakshu-dev/chakshu/internal/version.Version=$ver" \
    -o "$out/$name.tmp" ./cmd/chakshu-action
  mv "$out/$name.tmp" "$out/$name"
  gzip -9 -n -c "$out/$name" > "$out/$name.gz.tmp"
  mv "$out/$name.gz.tmp" "$out/$name.gz"
  (cd "$out" && sha256sum "$name" > "$name.sha256")
done
