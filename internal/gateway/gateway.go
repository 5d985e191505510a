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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/sjson"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
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
	DB *store.DB
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
	// InferenceGeo is the Anthropic workspace's default_inference_geo
	// (CHAKSHU_MODEL_INFERENCE_GEO: "global" or "us"; "" means global): the
	// geo of a request that names none, when its answer does not say where
	// it ran. US-only inference costs more (models.Entry.USOnlyMultiplier).
	InferenceGeo string
	// MaxInFlight is how many model requests one run may have in flight at
	// once in this process; 0 means 4.
	MaxInFlight int
}

// Gateway forwards and meters model requests.
type Gateway struct {
	cfg      Config
	inFlight *inFlight
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
	switch cfg.InferenceGeo {
	case "", "global", models.GeoUS:
	default:
		return nil, fmt.Errorf("gateway: CHAKSHU_MODEL_INFERENCE_GEO %q is not global or us", cfg.InferenceGeo)
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = defaultMaxInFlight
	}
	return &Gateway{cfg: cfg, inFlight: &inFlight{n: map[int]int{}, max: cfg.MaxInFlight}}, nil
}

// request is the part of a Messages request the gateway looks at.
type request struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	// InferenceGeo is where the runner asked inference to run ("" for the
	// workspace's default; docs "Data residency").
	InferenceGeo string `json:"inference_geo"`
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
	if !g.inFlight.enter(rn.ID) {
		w.Header().Set("x-should-retry", "true")
		w.Header().Set("retry-after", "1")
		server.WriteError(w, http.StatusTooManyRequests, CodeInFlight,
			fmt.Sprintf("this run has %d model requests in flight already; wait for one to end", g.cfg.MaxInFlight))
		return
	}
	defer g.inFlight.leave(rn.ID)
	// Where inference runs, when the answer does not say: the request's
	// inference_geo, else the workspace's default. Only Anthropic's API
	// takes it; elsewhere the endpoint's region decides, at its own price.
	geo := ""
	if served.Provider == models.ProviderAnthropic {
		geo = cmp.Or(req.InferenceGeo, g.cfg.InferenceGeo)
	}
	res, spent, err := g.reserve(ctx, rn.ID, rn.MaxCostUsd, final, worstCase(entry, body, geo))
	if err != nil {
		log.Error("gateway admit", "err", redact.Error(err))
		server.WriteError(w, http.StatusInternalServerError, CodeInternal, "internal error")
		return
	} else if res == nil {
		w.Header().Set("x-should-retry", "false") // asking again cannot help
		why := "the run reached its cost cap"
		if spent != nil {
			why = fmt.Sprintf("the %s spend budget of $%.2f for %s is used up", spent.Period, spent.Limit, spent.What)
		}
		// The same code as the cap: the runner asks the agent for its result.
		server.WriteError(w, http.StatusTooManyRequests, CodeCostCap,
			why+"; submit the result now (one final request flagged X-Chakshu-Final: 1 is allowed)")
		return
	}
	// The ledger is written whatever becomes of the runner's connection.
	lctx := context.WithoutCancel(ctx)

	resp, err := up.Send(ctx, Call{Body: body, Model: served.Model, Stream: req.Stream,
		Version: r.Header.Get("anthropic-version"), Beta: r.Header.Get("anthropic-beta")})
	var ref *Refusal
	if errors.As(err, &ref) {
		res.release(lctx, log)
		log.Warn("model provider refused", "provider", ref.Provider, "code", ref.Code, "detail", redact.String(ref.Detail))
		ref.write(w)
		return
	}
	if err != nil {
		if mayBeBilled(ctx, err) {
			res.keep(log, "the request ended before its answer: "+redact.Error(err))
		} else {
			res.release(lctx, log)
		}
		log.Warn("model upstream", "provider", served.Provider, "err", redact.Error(err))
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream could not be reached")
		return
	}
	defer resp.Body.Close()
	if req.Stream && isEventStream(resp) {
		g.relay(ctx, w, resp, res, served.Provider, entry, geo, log)
		return
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, g.cfg.MaxResponseBytes+1))
	if err != nil {
		res.keep(log, "the answer could not be read")
		log.Warn("model upstream read", "err", redact.Error(err))
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream answer could not be read")
		return
	}
	if int64(len(out)) > g.cfg.MaxResponseBytes {
		res.keep(log, "the answer was too large to read")
		server.WriteError(w, http.StatusBadGateway, CodeUpstream, "the model upstream answer is too large")
		return
	}
	if resp.StatusCode/100 == 2 {
		var a answer
		if err := json.Unmarshal(out, &a); err != nil || a.Usage == nil {
			res.keep(log, "the answer has no usage")
		} else {
			u := withGeo(*a.Usage, geo)
			if err := res.settle(lctx, served.Provider, u, entry.Cost(u)); err != nil {
				log.Error("meter model usage", "err", redact.Error(err))
			}
		}
	} else {
		res.release(lctx, log) // error answers are not billed
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

// withGeo is u with where inference ran: the answer's own
// usage.inference_geo, else geo (the request's or the workspace's).
func withGeo(u models.Usage, geo string) models.Usage {
	if u.InferenceGeo == "" {
		u.InferenceGeo = geo
	}
	return u
}

// mayBeBilled says whether a request that failed with err may have reached
// the upstream and be billed: the runner gave up or the call timed out
// (the model may have answered in full), as against a connection that was
// never made.
func mayBeBilled(ctx context.Context, err error) bool {
	var ne net.Error
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}
