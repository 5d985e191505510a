package e2e

import (
	"os"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/runnerbin/runnerbintest"
)

// TestMain removes the chakshu-action runnerbintest built (once for all tests).
func TestMain(m *testing.M) {
	code := m.Run()
	runnerbintest.Cleanup()
	os.Exit(code)
}
