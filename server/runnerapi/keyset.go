package runnerapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keyRefetchEvery is the shortest time between two fetches of the issuer's
// keys. Issue 43 item 2: a token naming a key id the cached set lacks made
// the verifier refetch the keys every time, so the job fetch was limited per
// client address, and behind a reverse proxy every runner shared the one
// bucket a junk sender emptied. Now what costs is bounded instead: at most
// one fetch per interval whoever asks, and a token whose key is known is
// never held back.
const keyRefetchEvery = 10 * time.Second

// errKeysFresh refuses a token naming an unknown key while the keys were
// fetched less than keyRefetchEvery ago; the runner asks again shortly.
type errKeysFresh struct{ retryIn time.Duration }

func (e *errKeysFresh) Error() string {
	return fmt.Sprintf("token key id unknown; keys were fetched less than %s ago", keyRefetchEvery)
}

// keyOutcome tells the caller of Verify that a token was refused only
// because the keys were fetched too recently (the verifier wraps
// VerifySignature's errors as text): it rides in the context.
type keyOutcome struct{ wait time.Duration }

type keyOutcomeKey struct{}

// jwtAlgs are the signature algorithms Actions tokens use (RS256; GitHub's
// discovery document: id_token_signing_alg_values_supported).
var jwtAlgs = []jose.SignatureAlgorithm{jose.RS256}

// parseJWT parses a compact JWS signed with an algorithm of jwtAlgs, or
// says it is not one (junk, unsigned, another algorithm).
func parseJWT(raw string) (*jose.JSONWebSignature, error) {
	jws, err := jose.ParseSigned(raw, jwtAlgs)
	if err != nil {
		return nil, err
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("token has more than one signature")
	}
	return jws, nil
}

// keySet is the issuer's key set (oidc.KeySet): cached by key id, fetched
// again for an unknown key id at most once per keyRefetchEvery. A known key
// that fails to verify a signature never causes a fetch.
type keySet struct {
	url    string
	client *http.Client
	every  time.Duration
	now    func() time.Time

	mu      sync.RWMutex
	keys    map[string]jose.JSONWebKey
	fetched time.Time
	fetchMu sync.Mutex // one fetch at a time
}

func (k *keySet) key(kid string) (jose.JSONWebKey, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	key, ok := k.keys[kid]
	return key, ok
}

// VerifySignature verifies jwt's signature with the key its header names.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := parseJWT(jwt)
	if err != nil {
		return nil, fmt.Errorf("malformed token: %w", err)
	}
	kid := jws.Signatures[0].Header.KeyID
	key, ok := k.key(kid)
	if !ok {
		if err := k.refresh(ctx); err != nil {
			var fresh *errKeysFresh
			if o, _ := ctx.Value(keyOutcomeKey{}).(*keyOutcome); o != nil && errors.As(err, &fresh) {
				o.wait = fresh.retryIn
			}
			return nil, err
		}
		if key, ok = k.key(kid); !ok {
			return nil, fmt.Errorf("token key id %q is not the issuer's", kid)
		}
	}
	return jws.Verify(key)
}

// refresh fetches the keys unless they were fetched within k.every.
func (k *keySet) refresh(ctx context.Context) error {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	k.mu.RLock()
	since := k.now().Sub(k.fetched)
	fetchedOnce := !k.fetched.IsZero()
	k.mu.RUnlock()
	if fetchedOnce && since < k.every {
		return &errKeysFresh{retryIn: k.every - since}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return fmt.Errorf("issuer keys: %w", err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return fmt.Errorf("issuer keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("issuer keys: status %d", resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		return fmt.Errorf("issuer keys: %w", err)
	}
	keys := make(map[string]jose.JSONWebKey, len(set.Keys))
	for _, key := range set.Keys {
		if key.Use == "" || key.Use == "sig" {
			keys[key.KeyID] = key
		}
	}
	k.mu.Lock()
	k.keys, k.fetched = keys, k.now()
	k.mu.Unlock()
	return nil
}
