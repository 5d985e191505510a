package reliability

import (
	"fmt"
	"os"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/runnerbin/runnerbintest"
)

// binPath is the real chakshu binary, built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	bin, cleanup, err := cluster.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = bin
	code := m.Run()
	cleanup()
	runnerbintest.Cleanup()
	os.Exit(code)
}

// full reports whether the soak sizes were asked for (make soak).
func full() bool { return os.Getenv("CHAKSHU_SOAK") == "full" }

// size picks the CI or the full figure.
func size(ci, soak int) int {
	if full() {
		return soak
	}
	return ci
}

type clusterOptions struct {
	webs, workers int
	env           map[string]string
	hold          func(ghsim.WorkflowRun) bool
}

// startCluster starts the real binary's processes with GitHub's limits on,
// as GitHub documents them and in real time (ghsim.Limits; API.md "Rate
// limits"), and Chakshu's pacing under them (its defaults: 80 content
// writes a minute, 500 an hour): the soak's sizes fit inside them, and
// settle checks none was refused.
func startCluster(t *testing.T, o clusterOptions) *cluster.Cluster {
	t.Helper()
	return cluster.Start(t, cluster.Options{Binary: binPath, Webs: o.webs, Workers: o.workers, WebhookSecret: webhookSecret,
		Limits: &cluster.GitHubLimits, Env: o.env, Hold: o.hold})
}
