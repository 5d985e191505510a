#!/usr/bin/env bash
# Prints the version this checkout builds as, from its git tags (semantic
# versions, vMAJOR.MINOR.PATCH):
#   on a tag                 v1.2.0
#   3 commits after it       v1.2.0-3-gabc1234      (git describe)
#   uncommitted changes      …-dirty
#   no release tag yet       v0.0.0-N-gabc1234      (N: commits so far)
#   no git at all            dev
# `make build`, `make release` and deploy/Dockerfile (its VERSION argument)
# take it from here; chakshu, the chakshu-action it serves and the portal's
# footer are built with the same value.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo dev
  exit 0
fi
if v=$(git describe --tags --match 'v[0-9]*.[0-9]*.[0-9]*' --dirty 2>/dev/null); then
  echo "$v"
  exit 0
fi
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
echo "v0.0.0-$(git rev-list --count HEAD)-g$(git rev-parse --short=7 HEAD)$dirty"
