package doctor

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	entreviewer "github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// modelsInUse checks every model a reviewer uses (and the default) against
// the catalogue (unknown and retired fail; deprecated warns from 60 days
// before retirement) and against the upstream with GET /v1/models/{id}
// (docs "Models API"), telling a refused key from a model the upstream does
// not serve.
func (r *run) modelsInUse(ctx context.Context, db *store.DB) {
	src := r.cfg.Models
	if src == nil {
		var err error
		if src, err = models.NewSource(r.s.ModelCatalog); err != nil {
			r.add("model catalogue", false, redact.Error(err), "fix the file named by "+models.Setting+" or unset it")
			src = models.Static(models.Builtin())
		}
	}
	cat, err := src.Catalog()
	if err != nil {
		r.add("model catalogue", false, redact.Error(err), "fix the file named by "+models.Setting)
	}
	now := time.Now()
	if r.cfg.Now != nil {
		now = r.cfg.Now()
	}
	users := map[string][]string{reviewerconfig.Defaults().Model: {"(default)"}}
	if db != nil && r.dbOK {
		rvs, err := db.Reviewer.Query().Where(entreviewer.Enabled(true)).All(ctx)
		if err == nil {
			for _, rv := range rvs {
				m := reviewerconfig.FromEnt(rv).Model
				users[m] = append(users[m], rv.Name)
			}
		}
	}
	ids := make([]string, 0, len(users))
	for id := range users {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		name := "model " + id
		who := "used by " + strings.Join(users[id], ", ")
		e, st, err := cat.Check(id, now)
		if err != nil {
			r.add(name, false, who+": "+err.Error(), "set model: in those reviewers' reviewer.yaml to an active model")
			continue
		}
		detail := who + "; " + st.Sentence()
		if st.Warn {
			detail = "warning: " + detail
		}
		if e.Provider != models.ProviderAnthropic {
			r.add(name, true, detail+"; provider "+e.Provider+" not checked upstream", "")
			continue
		}
		r.upstreamModel(ctx, name, id, detail)
	}
}

func (r *run) upstreamModel(ctx context.Context, name, id, detail string) {
	u := strings.TrimRight(r.s.ModelURL, "/") + "/v1/models/" + url.PathEscape(id)
	hdr := http.Header{"Anthropic-Version": {"2023-06-01"}}
	if r.s.ModelAPIKey != "" {
		hdr.Set("X-Api-Key", r.s.ModelAPIKey)
	}
	resp, err := r.get(ctx, u, hdr)
	if err != nil {
		r.add(name, false, redact.Error(err), "check CHAKSHU_MODEL_URL and the network path to it")
		return
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		r.add(name, true, detail, "")
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		r.add(name, false, fmt.Sprintf("%s refused the key (%d), so the model could not be checked", r.s.ModelURL, resp.StatusCode),
			"set CHAKSHU_MODEL_API_KEY to a valid key for CHAKSHU_MODEL_URL")
	case resp.StatusCode == http.StatusNotFound:
		r.add(name, false, fmt.Sprintf("%s does not serve %s (404): the model is unknown there or retired", r.s.ModelURL, id),
			"set model: in those reviewers' reviewer.yaml to a model the upstream serves, and correct the catalogue ("+models.Setting+")")
	default:
		r.add(name, false, fmt.Sprintf("%s answered %d for %s", r.s.ModelURL, resp.StatusCode, id), "the upstream is failing; check its status")
	}
}
