package providersim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// signed is a Bedrock request signed with SigV4 as the AWS SDKs sign it.
func signed(t *testing.T, url, body, ak, sk, region string, at time.Time) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: ak, SecretAccessKey: sk}, r,
		hex.EncodeToString(sum[:]), "bedrock", region, at); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBedrockRefuses(t *testing.T) {
	b := &Bedrock{Model: scriptedmodel.New(scriptedmodel.Config{}), Models: map[string]string{"m.v1:0": "claude-sonnet-5-5"}}
	srv := httptest.NewServer(b)
	defer srv.Close()
	ok := `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	url := srv.URL + "/model/m.v1:0/invoke"
	now := time.Now()
	cases := []struct {
		name   string
		req    *http.Request
		status int
		typ    string
	}{
		{"accepted", signed(t, url, ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now), 200, ""},
		{"unsigned", func() *http.Request { r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(ok)); return r }(), 403, "MissingAuthenticationTokenException"},
		{"unknown key", signed(t, url, ok, "AKIAOTHERKEY0000000X", BedrockSecretKey, BedrockRegion, now), 403, "UnrecognizedClientException"},
		{"wrong secret", signed(t, url, ok, BedrockAccessKey, strings.Repeat("k", 40), BedrockRegion, now), 403, "InvalidSignatureException"},
		{"other region", signed(t, url, ok, BedrockAccessKey, BedrockSecretKey, "eu-west-1", now), 403, "InvalidSignatureException"},
		{"expired (5 min + 1 s)", signed(t, url, ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now.Add(-5*time.Minute-time.Second)), 403, "InvalidSignatureException"},
		{"within 5 min", signed(t, url, ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now.Add(-4*time.Minute)), 200, ""},
		{"model in body", signed(t, url, `{"anthropic_version":"bedrock-2023-05-31","model":"x","max_tokens":10,"messages":[]}`, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now), 400, "ValidationException"},
		{"first-party version", signed(t, url, `{"anthropic_version":"2023-06-01","max_tokens":10,"messages":[]}`, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now), 400, "ValidationException"},
		{"no access", signed(t, srv.URL+"/model/other.v1:0/invoke", ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now), 403, "AccessDeniedException"},
		{"unknown operation", signed(t, srv.URL+"/model/m.v1:0/converse", ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now), 404, "UnknownOperationException"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("x-amzn-ErrorType"), tc.typ) {
				t.Fatalf("%d %q, want %d %s", resp.StatusCode, resp.Header.Get("x-amzn-ErrorType"), tc.status, tc.typ)
			}
		})
	}
	// A body changed after signing no longer matches the signature.
	r := signed(t, url, ok, BedrockAccessKey, BedrockSecretKey, BedrockRegion, now)
	r2, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(strings.Replace(ok, "hi", "ho", 1)))
	r2.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(r2)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("tampered body: %d", resp.StatusCode)
	}
}

func TestVertexRefuses(t *testing.T) {
	v := &Vertex{Model: scriptedmodel.New(scriptedmodel.Config{}), Project: "p", Region: "us-east5", Models: map[string]string{"m@1": "claude-sonnet-5-5"}}
	srv := httptest.NewServer(v)
	defer srv.Close()
	v.BaseURL = srv.URL
	v.init()
	v.tokens["ya29.good"] = time.Now().Add(time.Hour)
	v.tokens["ya29.old"] = time.Now().Add(-time.Second)
	ok := `{"anthropic_version":"vertex-2023-10-16","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	path := "/v1/projects/p/locations/us-east5/publishers/anthropic/models/m@1:rawPredict"
	cases := []struct {
		name, token, path, body, status string
		code                            int
	}{
		{"accepted", "ya29.good", path, ok, "", 200},
		{"no token", "", path, ok, "UNAUTHENTICATED", 401},
		{"expired token", "ya29.old", path, ok, "UNAUTHENTICATED", 401},
		{"other project", "ya29.good", strings.Replace(path, "/p/", "/q/", 1), ok, "NOT_FOUND", 404},
		{"unknown method", "ya29.good", strings.Replace(path, "rawPredict", "predict", 1), ok, "NOT_FOUND", 404},
		{"not enabled", "ya29.good", strings.Replace(path, "m@1", "n@1", 1), ok, "NOT_FOUND", 404},
		{"model in body", "ya29.good", path, strings.Replace(ok, `"max_tokens"`, `"model":"m","max_tokens"`, 1), "INVALID_ARGUMENT", 400},
		{"first-party version", "ya29.good", path, strings.Replace(ok, "vertex-2023-10-16", "2023-06-01", 1), "INVALID_ARGUMENT", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(tc.body))
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			resp.Body.Close()
			if resp.StatusCode != tc.code || !strings.Contains(string(b[:n]), tc.status) {
				t.Fatalf("%d %s", resp.StatusCode, b[:n])
			}
		})
	}
	// The token endpoint refuses an assertion that is not the account's.
	for name, a := range map[string]string{"not a JWT": "abc", "unsigned": "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.", "forged": "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln"} {
		resp, err := http.PostForm(srv.URL+"/token", map[string][]string{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {a}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d", name, resp.StatusCode)
		}
	}
}

// Foundry refuses a missing or wrong resource key with Azure's 401 before
// the request reaches Claude, and an unknown deployment with 404; the
// deployment name is rewritten to the model the scripted model answers as.
func TestFoundryRefuses(t *testing.T) {
	f := &Foundry{Model: scriptedmodel.New(scriptedmodel.Config{}), Deployments: map[string]string{"my-claude": "claude-sonnet-5-5"}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	ok := `{"model":"my-claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	path := "/anthropic/v1/messages"
	cases := []struct {
		name, header, key, path, body, code string
		status                              int
	}{
		{"x-api-key", "x-api-key", FoundryKey, path, ok, "", 200},
		{"api-key", "api-key", FoundryKey, path, ok, "", 200},
		{"no key", "", "", path, ok, `"code":"401"`, 401},
		{"wrong key", "x-api-key", FoundryKey + "x", path, ok, `"code":"401"`, 401},
		{"bearer is not the key header", "Authorization", "Bearer " + FoundryKey, path, ok, `"code":"401"`, 401},
		{"first-party path", "x-api-key", FoundryKey, "/v1/messages", ok, `"code":"404"`, 404},
		{"undeployed model", "x-api-key", FoundryKey, path, strings.Replace(ok, "my-claude", "claude-sonnet-5-5", 1), "DeploymentNotFound", 404},
		{"not JSON", "x-api-key", FoundryKey, path, "{", "invalid_request_error", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(tc.body))
			if tc.header != "" {
				r.Header.Set(tc.header, tc.key)
			}
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.code) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
			if tc.status == 200 && !strings.Contains(string(b), `"model":"claude-sonnet-5-5"`) {
				t.Fatalf("answered as %s", b)
			}
		})
	}
	if f.Calls() != 2 {
		t.Fatalf("%d calls reached the model, want the 2 accepted", f.Calls())
	}
}
