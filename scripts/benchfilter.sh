#!/usr/bin/env bash
# Passes benchmark output through, keeping the lines that print figures against budgets.
set -uo pipefail
grep -vE '^(goos|goarch|pkg|cpu):' || true
