package doctor

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
)

// ghes reads GET /meta: Enterprise Server answers its installed_version
// (GHES's description of meta/get; github.com has none) and says which of
// its behaviours apply to Chakshu.
func (r *run) ghes(ctx context.Context, apps *gh.Apps) {
	c := apps.App()
	req, err := c.NewRequest(ctx, "GET", "meta", nil)
	if err != nil {
		r.add("GitHub server", false, err.Error(), "check CHAKSHU_GITHUB_URL")
		return
	}
	var meta struct {
		InstalledVersion string `json:"installed_version"`
	}
	if _, err := c.Do(req, &meta); err != nil {
		r.add("GitHub server", false, "GET /meta: "+ghError(err), "check CHAKSHU_GITHUB_URL (Enterprise Server: https://HOST/api/v3/)")
		return
	}
	if meta.InstalledVersion == "" {
		r.add("GitHub server", true, "github.com: workflow dispatch returns the run it started; Actions OIDC issuer "+config.DefaultOIDCIssuer, "")
		return
	}
	want := config.DefaultOIDCIssuerFor(r.s.GitHubURL)
	detail := fmt.Sprintf("Enterprise Server %s: workflow dispatch without return_run_details (the run is found by its run-name); "+
		"Actions OIDC issuer %s; webhook deliveries count as failed after 30 s and are recovered from the App's delivery log", meta.InstalledVersion, want)
	if r.s.OIDCIssuer != want {
		r.add("GitHub server", false, detail+"; CHAKSHU_OIDC_ISSUER is "+r.s.OIDCIssuer,
			"unset CHAKSHU_OIDC_ISSUER (it defaults to "+want+") or set it to this server's issuer")
		return
	}
	r.add("GitHub server", true, detail, "")
}
