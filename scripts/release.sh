#!/usr/bin/env bash
# Builds a release of Chakshu into OUTDIR (`make release`):
#
#   chakshu_VERSION_linux_ARCH.tar.gz         the server (portal embedded) with
#                                             runner/: chakshu-action for both
#                                             Linux platforms, as it serves them
#   chakshu-action_VERSION_linux_ARCH.tar.gz  the runner alone
#   chakshu_VERSION.cdx.json                  CycloneDX SBOM of the server
#   chakshu-action_VERSION.cdx.json           CycloneDX SBOM of the runner
#   chakshu-helm-CHARTVERSION.tgz             the Helm chart, appVersion VERSION
#   Dockerfile                                the image, made from the archives
#   SHA256SUMS                                sha256sum of all of the above
#
#   scripts/release.sh OUTDIR VERSION [GOOS/GOARCH ...]   (default linux/amd64 linux/arm64)
#   scripts/release.sh --check                             (what `make test` runs)
#
# Reproducible: static binaries with -trimpath and no VCS stamp, archives with
# sorted names, owner 0 and every mtime set to the last commit's time
# (SOURCE_DATE_EPOCH when set), gzip without name or time, SBOMs without
# serial number or timestamp. The same commit and Go toolchain give the same
# SHA256SUMS. The portal is embedded as frontend/dist holds it: `make release`
# builds it first.
#
# --check builds one platform (this machine's, when Linux) twice into
# temporary folders, offline once modules are downloaded, and fails unless
# both SHA256SUMS are equal, verify, and the SBOMs are CycloneDX JSON naming
# the module.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export GOFLAGS=-buildvcs=false
mod=github.com/chakshu-dev/chakshu

if [ "${1:-}" = --check ]; then
  arch=$(go env GOARCH)
  case "$arch" in amd64 | arm64) ;; *) arch=amd64 ;; esac
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/chakshu-release-check.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  trap 'echo "release check: failed at scripts/release.sh line $LINENO" >&2' ERR
  for n in 1 2; do
    "$0" "$tmp/$n" v0.0.0-check "linux/$arch" >/dev/null
  done
  if ! diff -u "$tmp/1/SHA256SUMS" "$tmp/2/SHA256SUMS"; then
    echo "release check: two builds of one commit differ" >&2
    exit 1
  fi
  (cd "$tmp/1" && sha256sum --quiet -c SHA256SUMS)
  for f in chakshu chakshu-action; do
    python3 - "$tmp/1/${f}_v0.0.0-check.cdx.json" "$mod" <<'PY'
import json, sys
path, mod = sys.argv[1], sys.argv[2]
bom = json.load(open(path))
assert bom.get("bomFormat") == "CycloneDX", f"{path}: bomFormat {bom.get('bomFormat')!r}"
assert bom.get("specVersion", "").startswith("1."), f"{path}: specVersion {bom.get('specVersion')!r}"
main = bom["metadata"]["component"]
assert main["name"] == mod, f"{path}: main component {main['name']!r}"
deps = [c for c in bom.get("components", []) if c.get("purl", "").startswith("pkg:golang/")]
assert deps, f"{path}: no Go module components"
assert "serialNumber" not in bom and "timestamp" not in bom["metadata"], f"{path}: not reproducible"
PY
  done
  tar -tzf "$tmp/1/chakshu_v0.0.0-check_linux_$arch.tar.gz" | grep -x "chakshu_v0.0.0-check_linux_$arch/chakshu" >/dev/null
  tar -tzf "$tmp/1/chakshu_v0.0.0-check_linux_$arch.tar.gz" | grep -x "chakshu_v0.0.0-check_linux_$arch/runner/chakshu-action-v0.0.0-check-linux-$arch.sha256" >/dev/null
  tar -xzOf "$tmp/1/chakshu-helm-0.0.0-check.tgz" chakshu/Chart.yaml | grep -x 'appVersion: "v0.0.0-check"' >/dev/null
  tar -xzOf "$tmp/1/chakshu-helm-0.0.0-check.tgz" chakshu/Chart.yaml | grep -x 'version: 0.0.0-check' >/dev/null
  grep -qx 'ARG VERSION=v0.0.0-check' "$tmp/1/Dockerfile"
  echo "release check: linux/$arch archives, chart, image definition, checksums and SBOMs reproducible and valid"
  exit 0
fi

usage="usage: scripts/release.sh OUTDIR VERSION [GOOS/GOARCH ...] | --check"
out=${1:?$usage}
ver=${2:?$usage}
shift 2
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64)
if ! [[ $ver =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]*)?$ ]]; then
  echo "release: $ver is not a semantic version (vMAJOR.MINOR.PATCH[-…]); tag the commit: git tag v1.2.3" >&2
  exit 2
fi
# The chart's version is the same, without the v (Helm wants SemVer 2 there).
chartver=${ver#v}

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH=$epoch
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/chakshu-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# pack NAME DIR: DIR's contents as NAME.tar.gz, byte for byte the same from
# the same files.
pack() {
  tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
    --mode='u+rwX,go+rX,go-w' --format=gnu -C "$(dirname "$2")" -cf - "$(basename "$2")" |
    gzip -9 -n >"$out/$1.tar.gz"
}

# The runners, of every platform released: each server archive serves them all.
scripts/runners.sh "$stage/runner" "$ver" "${platforms[@]}" >/dev/null
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  d="$stage/chakshu_${ver}_${os}_${arch}"
  mkdir -p "$d/runner"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -p "${GOPAR:-2}" -trimpath \
    -ldflags "-s -w -X $mod/internal/version.Version=$ver" -o "$d/chakshu" ./cmd/chakshu
  cp "$stage"/runner/chakshu-action-"$ver"-* "$d/runner/"
  cp CHANGELOG.md README.md "$d/"
  pack "chakshu_${ver}_${os}_${arch}" "$d"
  r="$stage/chakshu-action_${ver}_${os}_${arch}"
  mkdir -p "$r"
  cp "$stage/runner/chakshu-action-$ver-$os-$arch" "$r/chakshu-action"
  pack "chakshu-action_${ver}_${os}_${arch}" "$r"
done

# SBOMs (CycloneDX, made by cyclonedx-gomod, pinned in scripts/tools/go.mod),
# of the modules linked into each binary for the first platform. The tool
# reads the main module's version from git itself, with a library that cannot
# open a linked worktree (`git worktree add`), so it reads a plain clone of
# the commit being released (tags included).
first=${platforms[0]}
src="$stage/src"
git clone -q --no-checkout "$root" "$src"
git -C "$src" checkout -q --detach "$(git rev-parse HEAD)"
for m in chakshu chakshu-action; do
  (cd scripts/tools && GOOS=${first%/*} GOARCH=${first#*/} CGO_ENABLED=0 \
    go tool cyclonedx-gomod app -json -noserial -notimestamp -licenses -main "cmd/$m" \
    -output "$out/${m}_${ver}.cdx.json" "$src") 2>"$stage/sbom.log" ||
    { cat "$stage/sbom.log" >&2; exit 1; }
done

# The chart, its appVersion (the image tag it deploys by default) this version.
c="$stage/chakshu"
cp -r deploy/helm/chakshu "$c"
sed -i -e "s/^version:.*/version: $chartver/" -e "s/^appVersion:.*/appVersion: \"$ver\"/" "$c/Chart.yaml"
pack "chakshu-helm-$chartver" "$c"
mv "$out/chakshu-helm-$chartver.tar.gz" "$out/chakshu-helm-$chartver.tgz"

# The image definition: the released archives on the distroless base.
sed "s/^ARG VERSION=.*/ARG VERSION=$ver/" deploy/Dockerfile.release >"$out/Dockerfile"
touch -d "@$epoch" "$out"/*

(cd "$out" && rm -f SHA256SUMS && sha256sum -- *.tar.gz *.tgz *.cdx.json Dockerfile >SHA256SUMS)
echo "release $ver in $out:"
(cd "$out" && cat SHA256SUMS)
