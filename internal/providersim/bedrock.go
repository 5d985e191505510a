package providersim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/tidwall/gjson"
)

// Simulated AWS credentials (the shapes of AWS's documented examples).
const (
	BedrockAccessKey = "AKIAIOSFODNN7EXAMPLE"
	BedrockSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	BedrockRegion    = "us-east-1"
)

// Bedrock simulates Amazon Bedrock's runtime InvokeModel and
// InvokeModelWithResponseStream for Anthropic models.
type Bedrock struct {
	// Model is the scripted model behind it.
	Model http.Handler
	// Models are the model ids this account may invoke, each with the
	// Anthropic model id the scripted model answers as; any other id is
	// refused as Bedrock refuses a model without access.
	Models map[string]string
	// AccessKey and SecretKey are the credentials signatures are checked
	// with; empty means BedrockAccessKey and BedrockSecretKey.
	AccessKey, SecretKey, Region string
	// Now is the clock for signature expiry; nil means time.Now.
	Now func() time.Time

	// meter counts accepted invocations and throttles (Throttle).
	meter meter
}

// Throttle makes the next n invocations answer ThrottlingException.
func (b *Bedrock) Throttle(n int) { b.meter.arm(n) }

// Calls is how many invocations reached the model.
func (b *Bedrock) Calls() int { return b.meter.count() }

// bedrockError answers like the AWS restJson1 protocol: the status, the
// x-amzn-ErrorType header and {"message"} (Bedrock API reference, InvokeModel
// "Errors"; user guide "Troubleshooting Amazon Bedrock API Error Codes").
func bedrockError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("x-amzn-ErrorType", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	jsonError(w, status, map[string]string{"message": msg})
}

func (b *Bedrock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		bedrockError(w, http.StatusBadRequest, "ValidationException", "unreadable body")
		return
	}
	if typ, msg := b.verify(r, body); typ != "" {
		bedrockError(w, http.StatusForbidden, typ, msg)
		return
	}
	// POST /model/{modelId}/invoke and /model/{modelId}/invoke-with-response-stream
	// (Bedrock API reference, InvokeModel; the id is path-escaped, so an
	// inference profile ARN's colons and slashes arrive encoded).
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/model/")
	i := strings.LastIndex(rest, "/")
	if r.Method != http.MethodPost || !ok || i < 0 {
		bedrockError(w, http.StatusNotFound, "UnknownOperationException", "")
		return
	}
	id, _ := url.PathUnescape(rest[:i])
	op := rest[i+1:]
	if op != "invoke" && op != "invoke-with-response-stream" {
		bedrockError(w, http.StatusNotFound, "UnknownOperationException", "")
		return
	}
	// Request body: Anthropic's Messages fields with anthropic_version
	// "bedrock-2023-05-31", and neither model nor stream (Bedrock user guide,
	// "Anthropic Claude Messages API", request and response).
	if v := gjson.GetBytes(body, "anthropic_version").String(); v != "bedrock-2023-05-31" {
		bedrockError(w, http.StatusBadRequest, "ValidationException", fmt.Sprintf("anthropic_version: %q is not supported", v))
		return
	}
	for _, f := range []string{"model", "stream"} {
		if gjson.GetBytes(body, f).Exists() {
			bedrockError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: extraneous key ["+f+"] is not permitted")
			return
		}
	}
	model, ok := b.Models[id]
	if !ok {
		bedrockError(w, http.StatusForbidden, "AccessDeniedException", "You don't have access to the model with the specified model ID.")
		return
	}
	if !b.meter.take() {
		bedrockError(w, http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.")
		return
	}
	stream := op == "invoke-with-response-stream"
	rec := forward(b.Model, r, asMessages(body, model, stream))
	if rec.Code != http.StatusOK {
		bedrockError(w, rec.Code, "ValidationException", gjson.GetBytes(rec.Body.Bytes(), "error.message").String())
		return
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(rec.Body.Bytes()) //nolint:errcheck
		return
	}
	b.stream(w, rec.Body.Bytes())
}

// stream answers with the AWS event stream (content type
// application/vnd.amazon.eventstream): one event message per Messages
// event, :event-type "chunk", its payload {"bytes": base64 of the event's
// JSON} (Bedrock API reference, InvokeModelWithResponseStream: "PayloadPart
// … bytes: Base64-encoded bytes of payload data"); the last chunk carries
// amazon-bedrock-invocationMetrics beside the message_stop event.
func (b *Bedrock) stream(w http.ResponseWriter, sse []byte) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("X-Amzn-Bedrock-Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := eventstream.NewEncoder()
	var in, out int64
	for _, ev := range sseEvents(sse) {
		data := []byte(ev[1])
		switch ev[0] {
		case "ping":
			continue // Bedrock sends no pings
		case "message_start":
			in = gjson.GetBytes(data, "message.usage.input_tokens").Int()
		case "message_delta":
			out = gjson.GetBytes(data, "usage.output_tokens").Int()
		case "message_stop":
			var m map[string]any
			_ = json.Unmarshal(data, &m)
			m["amazon-bedrock-invocationMetrics"] = map[string]int64{"inputTokenCount": in, "outputTokenCount": out,
				"invocationLatency": 1, "firstByteLatency": 1}
			data, _ = json.Marshal(m)
		}
		payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
		msg := eventstream.Message{Payload: payload}
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		if err := enc.Encode(w, msg); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// verify checks the request's SigV4 signature as AWS does: the credential
// scope names the access key, date, region and service "bedrock"; the
// signing time is within 5 minutes; and the signature recomputed with the
// secret key over the signed headers and the body's SHA-256 matches (AWS
// General Reference, "Signature Version 4 signing process"; errors
// UnrecognizedClientException, InvalidSignatureException). It returns the
// error type and message, or "".
func (b *Bedrock) verify(r *http.Request, body []byte) (string, string) {
	ak, sk, region := b.AccessKey, b.SecretKey, b.Region
	if ak == "" {
		ak, sk = BedrockAccessKey, BedrockSecretKey
	}
	if region == "" {
		region = BedrockRegion
	}
	auth := r.Header.Get("Authorization")
	const algo = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algo) {
		return "MissingAuthenticationTokenException", "Missing Authentication Token"
	}
	fields := map[string]string{}
	for _, p := range strings.Split(strings.TrimPrefix(auth, algo), ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok {
			fields[k] = v
		}
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[0] != ak {
		return "UnrecognizedClientException", "The security token included in the request is invalid."
	}
	if scope[2] != region || scope[3] != "bedrock" || scope[4] != "aws4_request" {
		return "InvalidSignatureException", "Credential should be scoped to a valid region and service bedrock."
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	if err != nil || now().Sub(when).Abs() > 5*time.Minute {
		return "InvalidSignatureException", "Signature expired or X-Amz-Date missing."
	}
	clone, _ := http.NewRequestWithContext(context.Background(), r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	clone.Host = r.Host
	for _, h := range strings.Split(fields["SignedHeaders"], ";") {
		if h == "host" {
			continue
		}
		for _, v := range r.Header.Values(h) {
			clone.Header.Add(h, v)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: ak, SecretAccessKey: sk, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, clone, hex.EncodeToString(sum[:]), "bedrock", region, when); err != nil {
		return "InvalidSignatureException", err.Error()
	}
	if clone.Header.Get("Authorization") != auth {
		return "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."
	}
	return "", ""
}
