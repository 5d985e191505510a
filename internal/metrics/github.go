package metrics

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// GitHub counts calls to GitHub by endpoint (route template) and status, and
// tracks the rate limit GitHub reports.
type GitHub struct {
	calls     *prometheus.CounterVec
	remaining *prometheus.GaugeVec
}

// NewGitHub registers the GitHub call metrics on reg.
func NewGitHub(reg prometheus.Registerer) (*GitHub, error) {
	g := &GitHub{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chakshu_github_requests_total",
			Help: "Requests to GitHub's API (each retry counts), by method, endpoint route template and status (\"error\" when no answer came).",
		}, []string{"method", "endpoint", "status"}),
		remaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "chakshu_github_rate_limit_remaining",
			Help: "X-RateLimit-Remaining of the latest GitHub answer, by rate-limit resource (core, graphql, …).",
		}, []string{"resource"}),
	}
	for _, c := range []prometheus.Collector{g.calls, g.remaining} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Transport wraps base (nil: http.DefaultTransport) so every call is counted.
func (g *GitHub) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base, g: g}
}

type transport struct {
	base http.RoundTripper
	g    *GitHub
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	ep := Endpoint(req.URL.Path)
	if err != nil {
		t.g.calls.WithLabelValues(req.Method, ep, "error").Inc()
		return resp, err
	}
	t.g.calls.WithLabelValues(req.Method, ep, strconv.Itoa(resp.StatusCode)).Inc()
	if v := resp.Header.Get("X-RateLimit-Remaining"); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			res := resp.Header.Get("X-RateLimit-Resource")
			if res == "" || len(res) > 40 {
				res = "core"
			}
			t.g.remaining.WithLabelValues(res).Set(n)
		}
	}
	return resp, err
}

// placeholder names the segment after a fixed segment; "*" means the rest of
// the path is one value.
var placeholder = map[string]string{
	"orgs": "{org}", "users": "{username}", "teams": "{team_slug}", "memberships": "{username}",
	"collaborators": "{username}", "app-manifests": "{code}", "branches": "{branch}", "commits": "{ref}",
	"blobs": "{sha}", "trees": "{sha}", "compare": "{basehead}", "labels": "{name}", "workflows": "{workflow_id}",
	"members": "{username}", "contents": "*", "ref": "*", "refs": "*", "tags": "{tag}",
}

// Endpoint turns a request path into GitHub's route template, so metrics
// keep a low cardinality: /api/v3/repos/acme/widget/pulls/7/files →
// /repos/{owner}/{repo}/pulls/{id}/files. Unknown shapes keep fixed words and
// replace anything else with {id}.
func Endpoint(path string) string {
	if i := strings.Index(path, "/api/v3/"); i >= 0 {
		path = path[i+len("/api/v3"):]
	} else if strings.HasSuffix(path, "/graphql") {
		return "/graphql"
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		return "/"
	}
	out := make([]string, 0, len(segs))
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch {
		case s == "repos" && i+1 < len(segs):
			out = append(out, "repos", "{owner}")
			if i+2 < len(segs) {
				out = append(out, "{repo}")
			}
			i += 2
			continue
		case placeholder[s] != "" && i+1 < len(segs):
			out = append(out, s)
			if placeholder[s] == "*" {
				return "/" + strings.Join(append(out, "{path}"), "/")
			}
			out = append(out, placeholder[s])
			i++
			continue
		case isWord(s):
			out = append(out, s)
		default:
			out = append(out, "{id}")
		}
	}
	return "/" + strings.Join(out, "/")
}

// isWord reports whether s is a fixed path word (lower-case letters, '-' and
// '_'), not a value such as a number, SHA or name with digits.
func isWord(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}
