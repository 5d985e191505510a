package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

var (
	endpointName = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)
	placeholder  = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]{0,30})\}`)
	headerName   = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)
)

const (
	defaultParamPattern = `[A-Za-z0-9._-]{1,100}`
	maxParamBytes       = 200
	maxHTTPBody         = 1 << 20
	maxRedirects        = 3
)

// endpoint is a declared http endpoint, checked.
type endpoint struct {
	reviewerconfig.HTTPEndpoint
	base   *url.URL // scheme and host of the template: the only place requests go
	params map[string]*regexp.Regexp
}

// parseEndpoint checks a declared endpoint: its scheme and host are literal
// (no placeholder can choose where a request goes) and every placeholder has
// a pattern.
func (r *Registry) parseEndpoint(ep reviewerconfig.HTTPEndpoint) (*endpoint, error) {
	if !endpointName.MatchString(ep.Name) {
		return nil, fmt.Errorf("http endpoint name %q: want [a-z0-9_-]{1,40}", ep.Name)
	}
	scheme, rest, ok := strings.Cut(ep.URL, "://")
	if !ok {
		return nil, fmt.Errorf("http endpoint %s: url must be absolute", ep.Name)
	}
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	if strings.ContainsAny(rest[:hostEnd], "{}@") {
		return nil, fmt.Errorf("http endpoint %s: the host must be literal", ep.Name)
	}
	base, err := url.Parse(scheme + "://" + rest[:hostEnd])
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("http endpoint %s: bad url", ep.Name)
	}
	switch {
	case base.Scheme == "https":
	case base.Scheme == "http" && r.cfg.AllowPlainHTTP:
	default:
		return nil, fmt.Errorf("http endpoint %s: only https:// urls are called", ep.Name)
	}
	if ep.Header != "" && !headerName.MatchString(ep.Header) {
		return nil, fmt.Errorf("http endpoint %s: bad header name", ep.Name)
	}
	e := &endpoint{HTTPEndpoint: ep, base: base, params: map[string]*regexp.Regexp{}}
	for _, m := range placeholder.FindAllStringSubmatch(ep.URL, -1) {
		pat := ep.Params[m[1]]
		if pat == "" {
			pat = defaultParamPattern
		}
		re, err := regexp.Compile(`^(?:` + pat + `)$`)
		if err != nil {
			return nil, fmt.Errorf("http endpoint %s: param %s: %w", ep.Name, m[1], err)
		}
		e.params[m[1]] = re
	}
	return e, nil
}

func (r *Registry) httpTool(ep reviewerconfig.HTTPEndpoint) (tool, bool) {
	e, err := r.parseEndpoint(ep)
	if err != nil {
		r.cfg.Log.Warn("http endpoint not offered", "err", err)
		return tool{}, false
	}
	props := map[string]any{}
	required := []string{}
	for p, re := range e.params {
		props[p] = map[string]string{"type": "string", "pattern": re.String()}
		required = append(required, p)
	}
	sch, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	desc := ep.Description
	if desc == "" {
		desc = "GET " + e.base.Host
	}
	return tool{
		def: runnerproto.ToolDef{Name: "http." + ep.Name, Description: desc, InputSchema: sch},
		run: func(ctx context.Context, s Scope, input json.RawMessage) (any, error) {
			return r.httpCall(ctx, s, e, input)
		},
	}, true
}

// safeSegment reports whether v may fill a URL placeholder whatever pattern
// the reviewer declared: no path separator, no dot segment, no percent sign
// (so no encoded or double-encoded form of either: servers and proxies
// that decode twice would turn %252e%252e into ..), no control character.
// A parameter must stay one segment under the endpoint's declared path
// (issue 19 item 5).
func safeSegment(v string) bool {
	if v == "." || strings.Contains(v, "..") || strings.ContainsAny(v, `/\%`) {
		return false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// build fills the template with validated, escaped values.
func (e *endpoint) build(in map[string]string) (*url.URL, error) {
	for k := range in {
		if _, ok := e.params[k]; !ok {
			return nil, toolErr("unknown parameter %q", k)
		}
	}
	var bad error
	// Each placeholder is escaped for the part of the URL it stands in
	// (issue 43 item 7): url.PathEscape leaves & = + ; : @ $ alone, which
	// in the query string would add parameters of the agent's choosing.
	query := strings.IndexAny(e.URL, "?#")
	if query < 0 {
		query = len(e.URL)
	}
	var b strings.Builder
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(e.URL, -1) {
		b.WriteString(e.URL[last:m[0]])
		last = m[1]
		name := e.URL[m[2]:m[3]]
		v, ok := in[name]
		switch {
		case !ok:
			bad = toolErr("parameter %q is required", name)
		case len(v) > maxParamBytes || !e.params[name].MatchString(v):
			bad = toolErr("parameter %q must match %s", name, e.params[name].String())
		case !safeSegment(v):
			bad = toolErr("parameter %q may not hold '/', '\\', '%%', '..' or control characters", name)
		}
		if m[0] < query {
			b.WriteString(url.PathEscape(v))
		} else {
			b.WriteString(url.QueryEscape(v))
		}
	}
	b.WriteString(e.URL[last:])
	raw := b.String()
	if bad != nil {
		return nil, bad
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, toolErr("the endpoint url could not be built")
	}
	if u.Scheme != e.base.Scheme || u.Host != e.base.Host {
		return nil, toolErr("the endpoint url left its declared host")
	}
	return u, nil
}

func (r *Registry) httpCall(ctx context.Context, s Scope, e *endpoint, input json.RawMessage) (any, error) {
	var in map[string]string
	if err := decodeInput(input, &in); err != nil {
		return nil, err
	}
	u, err := e.build(in)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", "Chakshu-connector")
	if e.Credential != "" {
		if r.cfg.Credentials == nil {
			return nil, toolErr("the credential %s is not available", e.Credential)
		}
		secret, hosts, err := r.cfg.Credentials.Lookup(ctx, s.InstallationID, "http", e.Credential)
		if errors.Is(err, ErrNoCredential) {
			return nil, toolErr("the credential %s is not set in Chakshu", e.Credential)
		}
		if err != nil {
			return nil, err
		}
		// The admin who stored the credential chose where it may go; the
		// reviewer.yaml only names it (issue 19 item 5). Nothing is sent.
		if len(hosts) == 0 {
			return nil, toolErr("the credential %s has no hosts it may be sent to; an admin sets them with the credential in Chakshu", e.Credential)
		}
		if !hostAllowed(u, hosts) {
			return nil, toolErr("the credential %s may not be sent to %s; an admin binds it to its hosts in Chakshu", e.Credential, u.Host)
		}
		h := e.Header
		if h == "" {
			h = "Authorization"
		}
		req.Header.Set(h, secret)
	}
	client := &http.Client{
		Transport: r.cfg.HTTPTransport,
		Timeout:   20 * time.Second,
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			if next.URL.Scheme != e.base.Scheme || next.URL.Host != e.base.Host {
				return toolErr("the endpoint redirected to %s, which is not its declared host", next.URL.Host)
			}
			if len(via) >= maxRedirects {
				return toolErr("the endpoint redirected too often")
			}
			return nil
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			return nil, te
		}
		return nil, toolErr("the endpoint could not be reached")
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody+1))
	if err != nil {
		return nil, toolErr("the endpoint's answer could not be read")
	}
	truncated := len(b) > maxHTTPBody
	if truncated {
		b = b[:maxHTTPBody]
	}
	out := map[string]any{"status": resp.StatusCode, "content_type": resp.Header.Get("Content-Type")}
	var js any
	if !truncated && strings.Contains(resp.Header.Get("Content-Type"), "json") && json.Unmarshal(b, &js) == nil {
		out["body"] = js
	} else {
		text, cut := capText(string(b), DefaultMaxOutput-1024)
		out["body"] = text
		truncated = truncated || cut
	}
	if truncated {
		out["truncated"] = true
	}
	return out, nil
}
