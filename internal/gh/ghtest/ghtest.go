// Package ghtest connects Chakshu's GitHub client (internal/gh) to the GitHub
// simulator (internal/ghsim) for tests: the App's clients of a simulated App
// and its installations, the set-up every test that talks to the simulator
// as Chakshu shares.
package ghtest

import (
	"testing"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

// Apps is Chakshu's client of sim's App appID, with key its private key (both
// from sim.CreateApp), on sim's REST and GraphQL endpoints; each opt may
// change the configuration first (a shorter retry policy).
func Apps(tb testing.TB, sim *ghsim.Sim, appID int64, key []byte, opts ...func(*gh.Config)) *gh.Apps {
	tb.Helper()
	cfg := gh.Config{AppID: appID, PrivateKey: key, BaseURL: sim.URL(), GraphQLURL: sim.GraphQLURL()}
	for _, o := range opts {
		o(&cfg)
	}
	apps, err := gh.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return apps
}

// Retry is an Apps option: retry as p says.
func Retry(p gh.RetryPolicy) func(*gh.Config) {
	return func(c *gh.Config) { c.Retry = p }
}

// Installation is apps' client of installation id.
func Installation(tb testing.TB, apps *gh.Apps, id int64) *gh.Installation {
	tb.Helper()
	in, err := apps.Installation(id)
	if err != nil {
		tb.Fatal(err)
	}
	return in
}
