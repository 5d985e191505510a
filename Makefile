# Chakshu. `make run` starts it (sandbox mode with no GitHub App configured);
# `make test` runs every test. Both install what they need on a fresh machine.
SHELL := /bin/bash
GO ?= go
export GOFLAGS := -buildvcs=false
# Two cores here: keep the build from thrashing.
GOPAR ?= 2
# The version chakshu, the chakshu-action it serves and the portal are built
# as: the git tag (vMAJOR.MINOR.PATCH), or vX.Y.Z-N-gHASH after it
# (scripts/version.sh).
VERSION ?= $(shell scripts/version.sh)
export CHAKSHU_VERSION := $(VERSION)

.PHONY: run build release test test-go test-frontend test-deploy test-release generate check-generate vet bench fuzz soak deps frontend clean

run: build
	./bin/chakshu all

# bin/chakshu, and in bin/runner/ the chakshu-action it serves to workflows,
# for this machine's platform only (what the sandbox's simulated runner
# downloads), built with bin/chakshu's flags so it shares its build cache.
# Both Linux platforms, static and -trimpath, are `make release`'s.
build: deps frontend
	$(GO) build -p $(GOPAR) -ldflags "-X github.com/chakshu-dev/chakshu/internal/version.Version=$(VERSION)" -o bin/chakshu ./cmd/chakshu
	@GOPAR=$(GOPAR) scripts/runners.sh bin/runner $(VERSION) --host

# A release into dist/: archives for linux/amd64 and linux/arm64 (server with
# its runners, runner alone), SHA256SUMS, CycloneDX SBOMs, the Helm chart and
# the image definition, reproducible (scripts/release.sh). Tag first:
# git tag v1.2.3 && make release
release: deps frontend
	rm -rf dist
	GOPAR=$(GOPAR) scripts/release.sh dist $(VERSION)

deps:
	@scripts/deps.sh

# The portal's production build, embedded by `chakshu web`.
frontend:
	@if [ -f frontend/package.json ]; then scripts/frontend.sh build; fi

test: deps vet test-go test-frontend test-deploy test-release

test-go:
	$(GO) test -p $(GOPAR) -race -timeout 25m ./...

test-frontend:
	@if [ -f frontend/package.json ]; then scripts/frontend.sh test; fi

# The Helm chart, the compose file and the systemd unit, rendered and validated
# offline (deploy/check is its own module: Helm's and Kubernetes' packages stay
# out of chakshu's build; the Go build cache keeps them after the first run).
test-deploy:
	cd deploy/check && $(GO) test -p $(GOPAR) -count=1 ./...

# The release build's offline form: one platform built twice, the two
# SHA256SUMS equal and verified, the SBOMs valid CycloneDX JSON.
test-release:
	GOPAR=$(GOPAR) scripts/release.sh --check

vet:
	$(GO) vet ./...

generate:
	scripts/generate.sh

# Fails when `make generate` changes committed files.
check-generate: generate
	@if [ -n "$$(git status --porcelain -- ent schema graph frontend/src/gql internal/ghsim/spec 2>/dev/null)" ]; then \
		echo "make generate changed committed files:"; git status --short -- ent schema graph frontend/src/gql internal/ghsim/spec; \
		git --no-pager diff --stat; exit 1; fi

# Each benchmark prints its figure next to its DESIGN §11 budget.
bench: deps
	$(GO) test -p 1 -run '^$$' -bench . -benchtime 1x -timeout 60m ./... | scripts/benchfilter.sh
	@if [ -f frontend/package.json ]; then scripts/frontend.sh size; fi

FUZZTIME ?= 30s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

soak:
	CHAKSHU_SOAK=full $(GO) test -p 1 -timeout 120m -run 'Soak|Crash|Fault|Hostile' -v ./internal/e2e/...

clean:
	rm -rf bin dist
