package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/config"
)

func TestClassifyRefusals(t *testing.T) {
	h := func(typ string) http.Header { return http.Header{"X-Amzn-Errortype": {typ}} }
	cases := []struct {
		name string
		got  func() (string, string)
		want string
	}{
		{"bedrock throttling", func() (string, string) { return classifyBedrock(429, h("ThrottlingException:http://x/"), nil) }, CodeThrottled},
		{"bedrock quota", func() (string, string) { return classifyBedrock(400, h("ServiceQuotaExceededException"), nil) }, CodeThrottled},
		{"bedrock not ready", func() (string, string) { return classifyBedrock(429, h("ModelNotReadyException"), nil) }, CodeThrottled},
		{"bedrock unavailable", func() (string, string) { return classifyBedrock(503, h("ServiceUnavailableException"), nil) }, CodeOverloaded},
		{"bedrock timeout", func() (string, string) { return classifyBedrock(408, h("ModelTimeoutException"), nil) }, CodeOverloaded},
		{"bedrock model access", func() (string, string) {
			return classifyBedrock(403, h("AccessDeniedException"), []byte(`{"message":"You don't have access to the model with the specified model ID."}`))
		}, CodeNotEnabled},
		{"bedrock IAM", func() (string, string) {
			return classifyBedrock(403, h("AccessDeniedException"), []byte(`{"message":"User: arn:aws:iam::1:user/x is not authorized to perform: bedrock:InvokeModel"}`))
		}, CodeCredentials},
		{"bedrock body type", func() (string, string) {
			return classifyBedrock(400, nil, []byte(`{"__type":"com.amazon.bedrock#ValidationException","message":"The provided model identifier is invalid."}`))
		}, CodeNotEnabled},
		{"bedrock validation", func() (string, string) {
			return classifyBedrock(400, h("ValidationException"), []byte(`{"message":"max_tokens: exceeds"}`))
		}, CodeRefused},
		{"bedrock not found", func() (string, string) { return classifyBedrock(404, h("ResourceNotFoundException"), nil) }, CodeNotEnabled},
		{"bedrock bad key", func() (string, string) { return classifyBedrock(403, h("UnrecognizedClientException"), nil) }, CodeCredentials},
		{"bedrock unknown 500", func() (string, string) { return classifyBedrock(500, h("SomethingNew"), nil) }, CodeOverloaded},
		{"google quota", func() (string, string) {
			return classifyGoogle(429, nil, []byte(`{"error":{"status":"RESOURCE_EXHAUSTED"}}`))
		}, CodeThrottled},
		{"google unavailable", func() (string, string) { return classifyGoogle(503, nil, []byte(`{"error":{"status":"UNAVAILABLE"}}`)) }, CodeOverloaded},
		{"google not found", func() (string, string) { return classifyGoogle(404, nil, []byte(`{"error":{"status":"NOT_FOUND"}}`)) }, CodeNotEnabled},
		{"google denied", func() (string, string) {
			return classifyGoogle(403, nil, []byte(`{"error":{"status":"PERMISSION_DENIED"}}`))
		}, CodeCredentials},
		{"google passes anthropic", func() (string, string) {
			return classifyGoogle(529, nil, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
		}, CodeOverloaded},
		{"anthropic rate", func() (string, string) {
			return classifyAnthropic(429, nil, []byte(`{"error":{"type":"rate_limit_error"}}`))
		}, CodeThrottled},
		{"anthropic auth", func() (string, string) {
			return classifyAnthropic(401, nil, []byte(`{"error":{"type":"authentication_error"}}`))
		}, CodeCredentials},
		{"anthropic not found", func() (string, string) {
			return classifyAnthropic(404, nil, []byte(`{"error":{"type":"not_found_error"}}`))
		}, CodeNotEnabled},
		{"anthropic invalid", func() (string, string) {
			return classifyAnthropic(400, nil, []byte(`{"error":{"type":"invalid_request_error"}}`))
		}, CodeRefused},
		{"status 529", func() (string, string) { return classifyAnthropic(529, nil, nil) }, CodeOverloaded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := tc.got(); got != tc.want {
				t.Errorf("kind %q, want %q", got, tc.want)
			}
		})
	}
	// The runner's statuses: throttling 429 and overload 529 are retried,
	// the rest are not; the message names the fix, never the detail.
	for kind, status := range map[string]int{CodeThrottled: 429, CodeOverloaded: 529, CodeNotEnabled: 400, CodeCredentials: 502, CodeRefused: 400} {
		r := refusal("bedrock", "m", 418, kind, "AKIAIOSFODNN7EXAMPLE detail", "3")
		if r.Status != status || strings.Contains(r.Message, "AKIA") || r.Message == "" {
			t.Errorf("%s: %d %q", kind, r.Status, r.Message)
		}
	}
}

func TestUpstreamsFromConfig(t *testing.T) {
	ctx := context.Background()
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ups, err := Upstreams(ctx, config.Providers{Platform: "openai", OpenAIURL: "http://127.0.0.1:1/v1", BedrockRegion: "eu-west-1",
		BedrockAccessKeyID: "AKIAIOSFODNN7EXAMPLE", BedrockSecretAccessKey: strings.Repeat("s", 40)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ups["openai"] == nil || ups["bedrock"] == nil || len(ups) != 2 {
		t.Fatalf("upstreams %v", ups)
	}
	bad := []config.Providers{
		{Platform: "bedrock"}, // no region in the chain here
		{VertexProject: "p", VertexRegion: "r", VertexCredentialsJSON: []byte(`{"type":"nonsense"}`)},
		{OpenAIURL: "not a url"},
		{FoundryResource: "r"}, // no key
	}
	for _, p := range bad {
		if _, err := Upstreams(ctx, p, nil); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

// A Chat Completions server that reports no usage is metered by estimate,
// never at zero: the stream's message_delta and a plain answer carry it.
func TestOpenAIWithoutUsage(t *testing.T) {
	in := "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abcdefgh\"}}]}\n\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"Read\",\"arguments\":\"\"}}]}}]}\n\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\"}}]}}]}\n\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a.go\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
	var out strings.Builder
	if err := translateStream(strings.NewReader(in), &out, "m", 400); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{`"text":"abcdefgh","type":"text_delta"`, `"name":"Read"`, `"partial_json":"{\"path\":"`,
		`"partial_json":"\"a.go\"}"`, `"stop_reason":"tool_use"`, `"input_tokens":100`, "event: message_stop"} {
		if !strings.Contains(s, want) {
			t.Errorf("stream lacks %s:\n%s", want, s)
		}
	}
	if err := translateStream(strings.NewReader(strings.TrimSuffix(in, "data: [DONE]\n\n")), &out, "m", 1); err == nil {
		t.Error("a stream cut before [DONE] passed as complete")
	}
	b, err := fromChat([]byte(`{"id":"c2","choices":[{"message":{"content":"ok"},"finish_reason":"length"}]}`), "m", 40)
	if err != nil || !strings.Contains(string(b), `"input_tokens":10`) || !strings.Contains(string(b), `"stop_reason":"max_tokens"`) {
		t.Fatalf("plain answer without usage: %s %v", b, err)
	}
}
