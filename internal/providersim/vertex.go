package providersim

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Vertex simulates Google's OAuth token endpoint for a service account and
// Vertex AI's rawPredict and streamRawPredict for Anthropic's models.
type Vertex struct {
	// Model is the scripted model behind it.
	Model http.Handler
	// Project and Region are the only ones served.
	Project, Region string
	// Models are the publisher model ids enabled in the project, each with
	// the Anthropic model id the scripted model answers as.
	Models map[string]string
	// BaseURL is where the simulator is served (the token endpoint's
	// audience and the key file's token_uri).
	BaseURL string

	once   sync.Once
	key    *rsa.PrivateKey
	keyID  string
	mu     sync.Mutex
	tokens map[string]time.Time
	// meter counts predictions and exhausts the quota (Exhaust).
	meter meter
}

const vertexEmail = "chakshu-sandbox@sim-project.iam.gserviceaccount.com"

func (v *Vertex) init() {
	v.once.Do(func() {
		v.key, _ = rsa.GenerateKey(rand.Reader, 2048)
		sum := sha256.Sum256(v.key.N.Bytes())
		v.keyID = hex.EncodeToString(sum[:20])
		v.tokens = map[string]time.Time{}
	})
}

// CredentialsJSON is a service account key file for the simulated project
// (the format of a key downloaded from IAM, token_uri pointing here), for
// google.CredentialsFromJSON.
func (v *Vertex) CredentialsJSON() []byte {
	v.init()
	der, _ := x509.MarshalPKCS8PrivateKey(v.key)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": v.Project, "private_key_id": v.keyID,
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": vertexEmail, "client_id": "100000000000000000001",
		"token_uri": strings.TrimRight(v.BaseURL, "/") + "/token",
	})
	return b
}

// Calls is how many predictions reached the model.
func (v *Vertex) Calls() int { return v.meter.count() }

// Exhaust makes the next n predictions answer 429 RESOURCE_EXHAUSTED.
func (v *Vertex) Exhaust(n int) { v.meter.arm(n) }

// googleError answers in Google's error shape (AIP-193).
func googleError(w http.ResponseWriter, code int, status, msg string) {
	jsonError(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

func (v *Vertex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.init()
	if r.URL.Path == "/token" {
		v.token(w, r)
		return
	}
	v.predict(w, r)
}

// token is the JWT bearer grant (RFC 7523; Google "Using OAuth 2.0 for
// Server to Server Applications"): the assertion is an RS256 JWT signed with
// the service account's key, iss the account's email, aud the token URI,
// a scope, and at most an hour between iat and exp. The answer is an access
// token valid for an hour.
func (v *Vertex) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		jsonError(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	claims, err := v.verifyJWT(r.PostForm.Get("assertion"))
	if err != nil {
		jsonError(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
		return
	}
	_ = claims
	tok := make([]byte, 24)
	_, _ = rand.Read(tok)
	access := "ya29.sim-" + base64.RawURLEncoding.EncodeToString(tok)
	v.mu.Lock()
	v.tokens[access] = time.Now().Add(time.Hour)
	v.mu.Unlock()
	jsonError(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3599})
}

func (v *Vertex) verifyJWT(jwt string) (map[string]any, error) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("assertion is not a JWT")
	}
	var hdr struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if json.Unmarshal(hb, &hdr) != nil || hdr.Alg != "RS256" {
		return nil, fmt.Errorf("alg must be RS256")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("bad signature encoding")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&v.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return nil, fmt.Errorf("Invalid JWT Signature.")
	}
	pb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	if json.Unmarshal(pb, &c) != nil {
		return nil, fmt.Errorf("bad claims")
	}
	iat, _ := c["iat"].(float64)
	exp, _ := c["exp"].(float64)
	now := float64(time.Now().Unix())
	switch {
	case c["iss"] != vertexEmail:
		return nil, fmt.Errorf("Invalid JWT: iss")
	case c["aud"] != strings.TrimRight(v.BaseURL, "/")+"/token":
		return nil, fmt.Errorf("Invalid JWT: aud")
	case exp-iat > 3600 || exp < now || iat > now+300:
		return nil, fmt.Errorf("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
	case c["scope"] == nil || c["scope"] == "":
		return nil, fmt.Errorf("Invalid JWT: no scope")
	}
	return c, nil
}

// predict serves POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:rawPredict
// and :streamRawPredict (Anthropic docs "Claude on Vertex AI"; Vertex AI
// "Use Claude": the model id carries its @version): a bearer token it
// issued, the project and region it serves, anthropic_version
// "vertex-2023-10-16" in the body and no model field. rawPredict answers
// the Messages JSON; streamRawPredict the Messages API's server-sent events.
func (v *Vertex) predict(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	v.mu.Lock()
	exp, ok := v.tokens[tok]
	v.mu.Unlock()
	if !ok || time.Now().After(exp) {
		googleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.")
		return
	}
	prefix := fmt.Sprintf("/v1/projects/%s/locations/%s/publishers/anthropic/models/", v.Project, v.Region)
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), prefix)
	if r.Method != http.MethodPost || !ok {
		googleError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL was not found on this server.")
		return
	}
	rest, _ = url.PathUnescape(rest)
	id, method, _ := strings.Cut(rest, ":")
	if method != "rawPredict" && method != "streamRawPredict" {
		googleError(w, http.StatusNotFound, "NOT_FOUND", "unknown method "+method)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "unreadable body")
		return
	}
	if got := gjson.GetBytes(body, "anthropic_version").String(); got != "vertex-2023-10-16" {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("anthropic_version: %q is not supported", got))
		return
	}
	if gjson.GetBytes(body, "model").Exists() {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "model: Extra inputs are not permitted")
		return
	}
	model, ok := v.Models[id]
	if !ok {
		googleError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Publisher Model `projects/%s/locations/%s/publishers/anthropic/models/%s` was not found or your project does not have access to it.", v.Project, v.Region, id))
		return
	}
	if !v.meter.take() {
		googleError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.")
		return
	}
	stream := method == "streamRawPredict" && gjson.GetBytes(body, "stream").Bool()
	rec := forward(v.Model, r, asMessages(body, model, stream))
	for k, vals := range rec.Header() {
		w.Header()[k] = vals
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes()) //nolint:errcheck
}
