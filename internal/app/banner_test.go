package app

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// Every link the start-up banner prints answers 200: it pointed at
// …/sim/acme, a 404, before (issue 23). One line names each seeded PR.
func TestSandboxBannerLinksAnswer(t *testing.T) {
	sb, err := sandbox.Start(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	banner := sandboxBanner("http://127.0.0.1:8123", sb)
	if !strings.HasPrefix(banner, "Chakshu is running in sandbox mode") || !strings.Contains(banner, "open http://127.0.0.1:8123 ") {
		t.Fatalf("banner:\n%s", banner)
	}
	var links []string
	for _, u := range regexp.MustCompile(`https?://\S+`).FindAllString(banner, -1) {
		if strings.HasPrefix(u, sb.Sim.PagesURL()) {
			links = append(links, u)
		}
	}
	if want := 1 + len(sb.PRs); len(links) != want {
		t.Fatalf("%d simulated GitHub links in the banner, want %d:\n%s", len(links), want, banner)
	}
	for _, u := range links {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", u, resp.StatusCode)
		}
	}
}
