package ghsim

// The simulator is validated against GitHub's published descriptions. This
// installs them with npm (exact versions, package-lock.json) and extracts the
// parts the simulator serves into spec/ (committed).
//go:generate sh -c "cd spec && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error"
//go:generate go run ./cmd/specgen
