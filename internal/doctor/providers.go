package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// maxProviderModels bounds how many models of one provider are asked.
const maxProviderModels = 3

// providerFix names what to set for each provider's credentials.
var providerFix = map[string]string{
	models.ProviderBedrock: "set CHAKSHU_BEDROCK_REGION (or AWS_REGION) and AWS credentials the default chain finds (environment, AWS_PROFILE, IRSA, an instance or task role) with bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream",
	models.ProviderVertex:  "set CHAKSHU_VERTEX_PROJECT and CHAKSHU_VERTEX_REGION, and Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS) or CHAKSHU_VERTEX_CREDENTIALS_FILE with aiplatform.endpoints.predict",
	models.ProviderFoundry: "set CHAKSHU_FOUNDRY_RESOURCE (or CHAKSHU_FOUNDRY_URL) and CHAKSHU_FOUNDRY_API_KEY",
	models.ProviderOpenAI:  "set CHAKSHU_OPENAI_URL (ending in /v1) and CHAKSHU_OPENAI_API_KEY",
}

// providers checks each configured model provider: its credentials resolve,
// and a one-token Messages request for each catalogue model it serves (at
// most three, the default model first) goes through the gateway's own
// provider code and is answered. The request costs one output token.
func (r *run) providers(ctx context.Context) {
	p := r.s.Providers
	configured := p.Configured()
	if len(configured) == 0 {
		return
	}
	ups, err := gateway.Upstreams(ctx, p, r.client)
	if err != nil {
		name := "model providers"
		fix := "see README, Model providers"
		for _, c := range configured {
			if strings.HasPrefix(err.Error(), "model provider "+c+":") || strings.Contains(err.Error(), "="+c+" ") {
				name, fix = "provider "+c, providerFix[c]
			}
		}
		r.add(name, false, redact.Error(err), fix)
		return
	}
	src := r.cfg.Models
	if src == nil {
		src, _ = models.NewSource(r.s.ModelCatalog) // its errors are reported by modelsInUse
	}
	cat, _ := src.Catalog()
	def := reviewerconfig.Defaults().Model
	for _, name := range configured {
		var ids []string
		for _, e := range cat.Entries() {
			s, err := e.Serve(p.Platform)
			if err != nil || s.Provider != name || e.StatusAt(r.now()).State == "retired" {
				continue
			}
			ids = append(ids, e.ID)
		}
		sort.SliceStable(ids, func(i, j int) bool { return ids[i] == def && ids[j] != def })
		if len(ids) == 0 {
			r.add("provider "+name, false, "configured, but no catalogue model is sent to it",
				fmt.Sprintf("name the model's %s id under \"providers\" in the file named by %s (see README, Model providers)", name, models.Setting))
			continue
		}
		for _, id := range ids[:min(len(ids), maxProviderModels)] {
			r.providerModel(ctx, name, ups[name], cat, id, p.Platform)
		}
	}
}

func (r *run) now() time.Time {
	if r.cfg.Now != nil {
		return r.cfg.Now()
	}
	return time.Now()
}

func (r *run) providerModel(ctx context.Context, name string, up gateway.Upstream, cat *models.Catalog, id, platform string) {
	check := "provider " + name + ": model " + id
	e, _ := cat.Lookup(id)
	s, _ := e.Serve(platform)
	body := fmt.Sprintf(`{"model":%q,"max_tokens":1,"messages":[{"role":"user","content":"ping"}]}`, s.Model)
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	resp, err := up.Send(ctx, gateway.Call{Body: []byte(body), Model: s.Model, Version: "2023-06-01"})
	var ref *gateway.Refusal
	switch {
	case errors.As(err, &ref):
		fix := providerFix[name]
		switch ref.Code {
		case gateway.CodeNotEnabled:
			fix = ref.Message
		case gateway.CodeThrottled, gateway.CodeOverloaded:
			r.add(check, true, "reachable ("+ref.Code+" just now)", "")
			return
		}
		r.add(check, false, fmt.Sprintf("%s answered %s: %s", s.Model, ref.Code, redact.String(ref.Detail)), fix)
	case err != nil:
		r.add(check, false, redact.Error(err), providerFix[name]+"; and check the network path to the provider")
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) //nolint:errcheck
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			r.add(check, false, fmt.Sprintf("%s answered %d", s.Model, resp.StatusCode), providerFix[name])
			return
		}
		r.add(check, true, "answered as "+s.Model, "")
	}
}
