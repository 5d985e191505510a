#!/usr/bin/env bash
# Installs what building and testing need when it is missing: Go modules and,
# when the portal exists, Node packages. Debian packages needed by particular
# tests (postgresql, chromium) are installed by those tests' helpers.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "Go is required (https://go.dev/dl/); this project uses Go $(sed -n 's/^go //p' go.mod)" >&2; exit 1; }
go mod download
