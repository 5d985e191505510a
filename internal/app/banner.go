package app

import (
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// sandboxBanner is what sandbox mode prints once it serves: the portal and
// the simulated GitHub, both on Chakshu's own address (so every link
// survives a restart), and a direct link to each seeded pull request.
func sandboxBanner(publicURL string, sb *sandbox.Sandbox) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Chakshu is running in sandbox mode (simulated GitHub and model): open %s — simulated GitHub at %s/\n",
		publicURL, sb.Sim.PagesURL())
	for _, pr := range sb.PRs {
		fmt.Fprintf(&b, "  %s#%d %s: %s/%s/pull/%d\n", pr.Repo, pr.Number, pr.Title, sb.Sim.PagesURL(), pr.Repo, pr.Number)
	}
	return b.String()
}
