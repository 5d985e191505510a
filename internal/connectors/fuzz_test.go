package connectors

import (
	"log/slog"
	"net/url"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// Whatever the template and the value, a built URL never leaves the
// template's literal scheme and host.
func FuzzEndpointBuild(f *testing.F) {
	f.Add("https://jira.example.com/rest/issue/{key}", `[A-Z]+-[0-9]+`, "PROJ-1")
	f.Add("https://jira.example.com/{a}?q={key}", `.*`, "@evil.com/")
	f.Add("https://api.example.com:8443/x/{key}", `.+`, "..%2f..%2fadmin")
	f.Add("https://{key}.example.com/", `.*`, "evil")
	f.Add("https://a.example.com/{key}", `.*`, "//evil.com")
	r, _ := New(Config{DB: &ent.Client{}, Log: slog.New(slog.DiscardHandler)})
	f.Fuzz(func(t *testing.T, tmpl, pattern, value string) {
		e, err := r.parseEndpoint(reviewerconfig.HTTPEndpoint{Name: "x", URL: tmpl, Params: map[string]string{"key": pattern, "a": pattern}})
		if err != nil {
			return
		}
		in := map[string]string{}
		for p := range e.params {
			in[p] = value
		}
		u, err := e.build(in)
		if err != nil {
			return
		}
		re, err := url.Parse(u.String())
		if err != nil {
			t.Fatalf("built an unparsable URL %q", u)
		}
		if re.Scheme != e.base.Scheme || re.Host != e.base.Host || re.User != nil {
			t.Fatalf("template %q value %q built %q, leaving %s", tmpl, value, u, e.base.Host)
		}
	})
}
