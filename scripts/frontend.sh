#!/usr/bin/env bash
# The portal (frontend/): build | test | generate | e2e | size.
#   build     npm ci when node_modules is missing or stale, then the Vite build into frontend/dist,
#             its footer showing CHAKSHU_VERSION (scripts/version.sh by default)
#             (embedded into the chakshu binary by frontend/embed.go).
#   test      type check (tsc), lint (oxlint), Vitest, then the browser end-to-end tests
#             against `chakshu all` in sandbox mode (Debian's chromium; installed when missing).
#   generate  GraphQL types from schema/*.graphqls into frontend/src/gql (committed).
#   e2e       only the end-to-end tests (builds the portal and chakshu first).
#   size      initial JS gzipped against the 250 KB budget (DESIGN §11); `make bench` runs it.
set -euo pipefail
cd "$(dirname "$0")/../frontend"

need_node() {
  command -v node >/dev/null && command -v npm >/dev/null || {
    echo "frontend: Node.js 20+ and npm are required (Debian: apt-get install nodejs npm)" >&2
    exit 1
  }
}

# npm ci when node_modules is missing or package-lock.json changed since the last install.
deps() {
  need_node
  local stamp=node_modules/.chakshu-lock.sha256
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "frontend: npm ci" >&2
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" >"$stamp"
  fi
}

# Debian's chromium for the browser tests; never a browser download through npm.
chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  echo "frontend: installing Debian's chromium for the browser tests" >&2
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
}

build() {
  deps
  # The version the portal's footer shows: the one chakshu is built as
  # (`make` exports CHAKSHU_VERSION; scripts/version.sh otherwise).
  VITE_CHAKSHU_VERSION=${CHAKSHU_VERSION:-$(../scripts/version.sh)} npx vite build --logLevel warn
}

e2e() {
  chromium
  [ -f dist/index.html ] || build
  # The e2e runner builds ./cmd/chakshu itself (with the embedded dist/).
  node --test --test-concurrency=1 e2e/
}

case "${1:-}" in
  build) build ;;
  generate)
    deps
    npx graphql-codegen --config codegen.ts --silent
    ;;
  test)
    deps
    npx tsc --noEmit -p tsconfig.json
    npx oxlint --deny-warnings src e2e scripts
    npx vitest run
    build
    node scripts/bundle-size.mjs
    e2e
    ;;
  e2e)
    deps
    build
    e2e
    ;;
  size)
    [ -f dist/index.html ] || build
    node scripts/bundle-size.mjs
    ;;
  *)
    echo "usage: scripts/frontend.sh build|test|generate|e2e|size" >&2
    exit 2
    ;;
esac
