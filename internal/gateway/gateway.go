// Package gateway is Chakshu's model gateway (DESIGN §2.7): it forwards a
// runner's Anthropic Messages request to the configured upstream with
// Chakshu's own key, meters the answer's usage against the run, and refuses
// once the run's cost cap is reached — except one final request, flagged by
// the runner, so the agent can still hand in its result. A streaming request
// ("stream": true) gets the upstream's server-sent events as they come, its
// usage read from the message_start and message_delta events.
//
// The caller (the runner API) authenticates the run token; the gateway only
// sees an authenticated, running run.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/sjson"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runs"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server"
)

// HeaderFinal flags the one request the runner may make past the cost cap.
const HeaderFinal = "X-Chakshu-Final"

// Error codes the gateway answers with (runnerproto.Error shape).
const (
	CodeCostCap     = "cost_cap_reached"
	CodeBadRequest  = "bad_request"
	CodeTooLarge    = "request_too_large"
	CodeModel       = "model_not_allowed"
	CodeFeature     = "feature_not_priced"
	CodeBeta        = "beta_not_allowed"
	CodeUpstream    = "upstream_error"
	CodeInternal    = "internal"
	defaultVersion  = "2023-06-01"
	defaultUpstream = "https://api.anthropic.com"
	// defaultReqLimit is the Messages API's request size limit, 32 MB
	// (docs "Errors": request_too_large; REALITY.md).
	defaultReqLimit  = 32_000_000
	defaultRespLimit = 8 << 20
	// defaultTimeout bounds one model call.
	defaultTimeout = 10 * time.Minute
)

// Config builds a Gateway.
type Config struct {
	// DB stores the run's figures.
	DB *ent.Client
	// Log receives operator detail.
	Log *slog.Logger
	// UpstreamURL is the Anthropic API base (CHAKSHU_MODEL_URL); the gateway
	// appends /v1/messages. Empty means https://api.anthropic.com.
	UpstreamURL string
	// APIKey is Chakshu's key for the upstream (CHAKSHU_MODEL_API_KEY).
	APIKey string
	// Models is the model catalogue that prices usage; nil means the built-in one.
	Models *models.Source
	// Platform is the provider Anthropic's models go through
	// (CHAKSHU_MODEL_PROVIDER: bedrock, vertex or foundry); "" or "anthropic"
	// means Anthropic's API. A catalogue model of another provider (a local
	// model behind an OpenAI-compatible server) goes to its own provider.
	Platform string
	// Upstreams are the configured providers by name (models.Provider*);
	// Anthropic's is built from UpstreamURL and APIKey unless given here.
	Upstreams map[string]Upstream
	// Betas are the anthropic-beta values a runner may send
	// (CHAKSHU_MODEL_BETAS); any other value is refused.
	Betas []string
	// Now is the clock for model lifecycles; nil means time.Now.
	Now func() time.Time
	// HTTPClient calls the upstream; nil means a client with a 10 minute timeout.
	HTTPClient *http.Client
	// MaxRequestBytes and MaxResponseBytes cap bodies; 0 means 32 MB and 8 MiB.
	MaxRequestBytes, MaxResponseBytes int64
}

// Gateway forwards and meters model requests.
type Gateway struct {
	cfg Config
}

// New validates cfg.
func New(cfg Config) (*Gateway, error) {
	if cfg.DB == nil {
		return nil, errors.New("gateway: DB is required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.UpstreamURL == "" {
		cfg.UpstreamURL = defaultUpstream
	}
	u, err := url.Parse(cfg.UpstreamURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gateway: CHAKSHU_MODEL_URL %q is not an http(s) URL", cfg.UpstreamURL)
	}
	if cfg.Models == nil {
		cfg.Models = models.Static(models.Builtin())
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: defaultTimeout}
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = defaultReqLimit
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = defaultRespLimit
	}
	ups := map[string]Upstream{}
	for k, v := range cfg.Upstreams {
		ups[k] = v
	}
	if ups[models.ProviderAnthropic] == nil {
		ups[models.ProviderAnthropic] = &anthropicUpstream{endpoint: strings.TrimRight(cfg.UpstreamURL, "/") + "/v1/messages",
			key: cfg.APIKey, client: cfg.HTTPClient}
	}
	cfg.Upstreams = ups
	if cfg.Platform == models.ProviderAnthropic {
		cfg.Platform = ""
	}
	return &Gateway{cfg: cfg}, nil
}

// request is the part of a Messages request the gateway looks at.
type request struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
}

// answer is the part of a Messages answer the gateway looks at.
type answer struct {
	Model string        `json:"model"`
	Usage *models.Usage `json:"usage"`
}

// forwarded are the upstream's headers the runner gets: the request id, the
// retry advice the SDKs follow (retry-after, retry-after-ms, x-should-retry;
// anthropic-sdk-go v2.15.0 internal/requestconfig) and the rate limit state.
var forwarded = []string{"Content-Type", "request-id", "retry-after", "retry-after-ms", "x-should-retry",
	"anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-tokens-remaining"}

// Serve forwards one Messages request of run rn (authenticated and running).
func (g *Gateway) Serve(w http.ResponseWriter, r *http.Request, rn *ent.Run) {
	ctx := r.Context()
	log := g.cfg.Log.With("run_id", rn.ID)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.MaxRequestBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			server.WriteError(w, http.StatusRequestEntityTooLarge, CodeTooLarge,
				fmt.Sprintf("model request is larger than %d bytes", g.cfg.MaxRequestBytes))
			return
		}
		server.WriteError(w, http.StatusBadRequest, CodeBadRequest, "could not read the request body")
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		server.WriteError(w, http.StatusBadRequest, CodeBadRequest, "the request body is not a JSON Messages request")
		return
	}
	if rn.Model != "" && req.Model != rn.Model {
		server.WriteError(w, http.StatusBadRequest, CodeModel, fmt.Sprintf("this run may only use model %q", rn.Model))
		return
	}
	cat, cerr := g.cfg.Models.Catalog()
	if cerr != nil {
		log.Error("model catalogue", "err", cerr) // the last good catalogue stays in force
	}
	entry, _, err := cat.Check(req.Model, g.cfg.Now())
	if err != nil {
		log.Warn("model refused", "model", req.Model, "err", err)
		server.WriteError(w, http.StatusBadRequest, CodeModel, err.Error())
		return
	}
	served, err := entry.Serve(g.cfg.Platform)
	if err != nil {
		log.Warn("model not offered", "model", req.Model, "err", err)
		server.WriteError(w, http.StatusBadRequest, CodeNotEnabled, err.Error())
		return
	}
	up := g.cfg.Upstreams[served.Provider]
	if up == nil {
		log.Warn("model provider not configured", "model", req.Model, "provider", served.Provider)
		server.WriteError(w, http.StatusBadRequest, CodeNotEnabled,
			fmt.Sprintf("model %q is served by %s, which this Chakshu has not configured (see README, Model providers)", req.Model, providerNames[served.Provider]))
		return
	}
	entry = served.Entry // priced as this provider charges
	if served.Model != req.Model {
		if body, err = sjson.SetBytes(body, "model", served.Model); err != nil {
			server.WriteError(w, http.StatusBadRequest, CodeBadRequest, "the request body is not a JSON Messages request")
			return
		}
	}
	if f := unpriced(body); f != "" {
		server.WriteError(w, http.StatusBadRequest, CodeFeature,
			fmt.Sprintf("the request uses %s, which has its own price that Chakshu does not meter; leave it out", f))
		return
	}
	if b := betaRefused(r.Header.Get("anthropic-beta"), g.cfg.Betas); b != "" {
		server.WriteError(w, http.StatusBadRequest, CodeBeta,
			fmt.Sprintf("anthropic-beta %q is not allowed; an operator can allow it in CHAKSHU_MODEL_BETAS", b))
		return
	}
	final := r.Header.Get(HeaderFinal) == "1"
	if allowed, err := g.admit(ctx, rn.ID, final); err != nil {
		log.Error("gateway admit", "err", redact.Error(err))
		server.WriteError(w, http.StatusInternalServerError, CodeInternal, "internal error")
		return
	} else if !allowed {
		w.Header().Set("x-should-retry", "false") // asking again cannot help
		server.WriteError(w, http.StatusTooManyRequests, CodeCostCap,
			"the run reached its cost cap; submit the result now (one final request flagged X-Chakshu-Final: 1 is allowed)")
		return
	}

	resp, err := up.Send(ctx, Call{Body: body, Model: served.Model, Stream: req.Stream,
		Version: r.Header.Get("anthropic-version"), Beta: r.Header.Get("anthropic-beta")})
	var ref *Refusal
	if errors.As(err, &ref) {
		log.Warn("model provider refused", "provider", ref.Provider, "code", ref.Code, "detail", redact.String(ref.Detail))
		ref.write(w)
		return
	}
	if err != nil {
		log.Warn("model upstream", "provider", served.Provider, "err", redact.Error(err))
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream could not be reached")
		return
	}
	defer resp.Body.Close()
	if req.Stream && isEventStream(resp) {
		g.relay(ctx, w, resp, rn, served.Provider, entry, log)
		return
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, g.cfg.MaxResponseBytes+1))
	if err != nil {
		log.Warn("model upstream read", "err", redact.Error(err))
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream answer could not be read")
		return
	}
	if int64(len(out)) > g.cfg.MaxResponseBytes {
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream answer is too large")
		return
	}
	if resp.StatusCode/100 == 2 {
		var a answer
		if err := json.Unmarshal(out, &a); err != nil || a.Usage == nil {
			log.Warn("model answer without usage", "status", resp.StatusCode)
		} else if err := g.meter(ctx, rn, served.Provider, *a.Usage, entry.Cost(*a.Usage)); err != nil {
			log.Error("meter model usage", "err", redact.Error(err))
		}
	} else {
		log.Warn("model upstream refused", "status", resp.StatusCode, "body", redact.String(string(out[:min(len(out), 500)])))
	}
	for _, h := range forwarded {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out) //nolint:errcheck
}

// admit says whether a request of run id may go out: always under the cap;
// at or past the cap only the first request flagged final.
func (g *Gateway) admit(ctx context.Context, id int, final bool) (bool, error) {
	rn, err := g.cfg.DB.Run.Query().Where(run.ID(id)).
		Select(run.FieldCostUsd, run.FieldMaxCostUsd).Only(ctx)
	if err != nil {
		return false, fmt.Errorf("load run: %w", err)
	}
	if rn.MaxCostUsd <= 0 || rn.CostUsd < rn.MaxCostUsd {
		return true, nil
	}
	if !final {
		return false, nil
	}
	n, err := g.cfg.DB.Run.Update().Where(run.ID(id), run.ModelFinalUsed(false)).SetModelFinalUsed(true).Save(ctx)
	if err != nil {
		return false, fmt.Errorf("spend final request: %w", err)
	}
	return n == 1, nil
}

// meter adds u and its cost to run rn in one atomic update, and notes on the
// timeline when this answer took the run to its cap.
func (g *Gateway) meter(ctx context.Context, rn *ent.Run, provider string, u models.Usage, cost float64) error {
	// One statement: an attempt PostgreSQL aborted added nothing, so the
	// retry adds the usage once.
	err := store.Retry(ctx, func() error {
		return g.cfg.DB.Run.Update().Where(run.ID(rn.ID)).SetProvider(provider).
			AddCostUsd(cost).AddInputTokens(u.InputTokens).AddOutputTokens(u.OutputTokens).
			AddCacheReadTokens(u.CacheReadInputTokens).AddCacheWriteTokens(u.CacheCreationInputTokens).
			Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("add usage: %w", err)
	}
	if rn.MaxCostUsd <= 0 {
		return nil
	}
	now, err := g.cfg.DB.Run.Query().Where(run.ID(rn.ID)).Select(run.FieldCostUsd).Only(ctx)
	if err != nil {
		return fmt.Errorf("reload cost: %w", err)
	}
	if now.CostUsd >= rn.MaxCostUsd && now.CostUsd-cost < rn.MaxCostUsd {
		msg := fmt.Sprintf("Reached the cost cap of $%.2f; the agent was asked for its result.", rn.MaxCostUsd)
		if err := runs.Note(ctx, g.cfg.DB, rn.ID, msg, ""); err != nil {
			return fmt.Errorf("note cost cap: %w", err)
		}
	}
	return nil
}
