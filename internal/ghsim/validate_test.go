package ghsim_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/gh"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// validatingSim is a sim whose validation errors are collected instead of
// failing the test, so a test can assert they happen.
func validatingSim(t *testing.T) (*ghsim.Sim, *[]string) {
	var errs []string
	s := ghsim.New(ghsim.Options{Validator: ghsimtest.Spec{}, OnValidationError: func(err error) { errs = append(errs, err.Error()) }})
	t.Cleanup(s.Close)
	return s, &errs
}

func TestValidationCatchesMalformedRequest(t *testing.T) {
	s, errs := validatingSim(t)
	s.CreateRepo("acme", "widget", map[string]string{"a.go": "package a\n"})
	appID, _ := s.CreateApp("chakshu")
	inst := s.Install(appID, "acme", nil, nil)
	tok := s.InstallationToken(inst)
	head := s.BranchSHA("acme/widget", "main")
	cases := []struct {
		name, method, path, body, want string
	}{
		{"check run status not in the enum", "POST", "repos/acme/widget/check-runs", `{"name":"x","head_sha":"` + head + `","status":"finished"}`, "request POST /repos/acme/widget/check-runs does not match"},
		{"review event of the wrong type", "POST", "repos/acme/widget/pulls/1/reviews", `{"event":42}`, "does not match GitHub's OpenAPI description"},
		{"unknown endpoint", "GET", "repos/acme/widget/frobnicate", ``, "unknown endpoint GET /repos/acme/widget/frobnicate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			*errs = nil
			req, _ := http.NewRequest(tc.method, s.URL()+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "token "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(*errs) == 0 || !strings.Contains(strings.Join(*errs, "\n"), tc.want) {
				t.Fatalf("validation errors = %q, want one containing %q", *errs, tc.want)
			}
		})
	}
	if got := len(s.ValidationErrors()); got < 3 {
		t.Errorf("recorded %d validation errors", got)
	}
}

func TestValidationPassesProductionClient(t *testing.T) {
	s, errs := validatingSim(t)
	s.CreateRepo("acme", "widget", map[string]string{"a.go": "package a\n"})
	appID, _ := s.CreateApp("chakshu")
	inst := s.Install(appID, "acme", nil, nil)
	c := gh.NewREST(httpClientWithToken(s.InstallationToken(inst)), s.URL())
	if _, _, err := c.Repositories.Get(context.Background(), "acme", "widget"); err != nil {
		t.Fatal(err)
	}
	if len(*errs) != 0 {
		t.Fatalf("errors: %v", *errs)
	}
}

type tokenTransport struct{ tok string }

func (t *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+t.tok)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClientWithToken(tok string) *http.Client {
	return &http.Client{Transport: &tokenTransport{tok}}
}
