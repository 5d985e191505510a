#!/usr/bin/env bash
# Regenerates every generated file: ent (+ entgql schema), gqlgen, and the
# portal's GraphQL types. The one place generation is run from.
set -euo pipefail
cd "$(dirname "$0")/.."
go generate ./...
if [ -f frontend/package.json ]; then scripts/frontend.sh generate; fi
