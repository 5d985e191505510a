package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Rotating CHAKSHU_SECRET_KEY (docs/production.md, Rotating the secret key):
// with CHAKSHU_SECRET_KEY_PREVIOUS set, everything sealed or signed under a
// previous key is still accepted, and each is moved to the current key when
// next written: sessions and the CSRF cookie are re-issued under the current
// key on the request that shows them, and `chakshu secrets rotate` re-seals
// what is stored. Once that has run and the longest cookie (SessionMaxAge,
// 12 h by default) has lived, the previous key can go.

// keyPairs are the hash and block keys of a cookie store for the current
// secret key, then for each previous one (gorilla/sessions tries each pair
// in order and encodes with the first).
func keyPairs(current []byte, previous [][]byte, hash, block string) [][]byte {
	var out [][]byte
	for _, k := range append([][]byte{current}, previous...) {
		out = append(out, derive(k, hash), derive(k, block)[:32])
	}
	return out
}

// derivedAll derives purpose from each previous key.
func derivedAll(keys [][]byte, purpose string) [][]byte {
	var out [][]byte
	for _, k := range keys {
		out = append(out, derive(k, purpose))
	}
	return out
}

// TokenSealer is the sealer of users' stored GitHub tokens under key (the
// current secret key) and the previous ones.
func TokenSealer(key []byte, previous [][]byte) (*connectors.Sealer, error) {
	return connectors.NewSealer(derive(key, "github-token"), derivedAll(previous, "github-token")...)
}

// ResealTokens seals every user's stored GitHub token under the sealer's
// current key (chakshu secrets rotate); a row changed meanwhile is left.
func ResealTokens(ctx context.Context, db *store.DB, s *connectors.Sealer) (connectors.Resealed, error) {
	var out connectors.Resealed
	users, err := db.User.Query().Where(user.GithubTokenSealedNotNil()).All(ctx)
	if err != nil {
		return out, fmt.Errorf("list users: %w", err)
	}
	for _, u := range users {
		if len(u.GithubTokenSealed) == 0 {
			continue
		}
		ct, changed, err := s.Reseal(u.GithubTokenSealed, tokenAD(u))
		switch {
		case errors.Is(err, connectors.ErrOpen):
			out.Unreadable = append(out.Unreadable, "user "+u.Login+"'s GitHub token")
			continue
		case err != nil:
			return out, err
		case !changed:
			out.Current++
			continue
		}
		n, err := db.User.Update().Where(user.ID(u.ID), user.GithubTokenSealedEQ(u.GithubTokenSealed)).SetGithubTokenSealed(ct).Save(ctx)
		if err != nil {
			return out, fmt.Errorf("reseal %s's GitHub token: %w", u.Login, err)
		}
		if n == 0 {
			out.Current++
			continue
		}
		out.Resealed++
	}
	return out, nil
}

// cookieRekey re-issues cookies a previous key signed under the current one.
type cookieRekey struct {
	current  *securecookie.SecureCookie   // the session store's first codec's equivalent
	previous []*securecookie.SecureCookie // one per previous key
}

// csrfCodecs mirror gorilla/csrf's cookie codec (an HMAC-only securecookie
// with JSON serialisation, 12 h) for a key.
func csrfCodec(key []byte) *securecookie.SecureCookie {
	sc := securecookie.New(derive(key, "csrf"), nil)
	sc.SetSerializer(securecookie.JSONEncoder{})
	sc.MaxAge(int((12 * time.Hour) / time.Second))
	return sc
}

func newCSRFRekey(current []byte, previous [][]byte) *cookieRekey {
	if len(previous) == 0 {
		return nil
	}
	k := &cookieRekey{current: csrfCodec(current)}
	for _, p := range previous {
		k.previous = append(k.previous, csrfCodec(p))
	}
	return k
}

// csrf moves a CSRF cookie signed under a previous key to the current key:
// on the request, so gorilla/csrf (which knows one key) accepts the token the
// portal already holds, and on the response, so the browser keeps the new
// one. Other requests pass as they are.
func (k *cookieRekey) csrf(w http.ResponseWriter, r *http.Request, secure bool) *http.Request {
	if k == nil {
		return r
	}
	c, err := r.Cookie(CSRFCookie)
	if err != nil {
		return r
	}
	var token []byte
	if k.current.Decode(CSRFCookie, c.Value, &token) == nil {
		return r
	}
	for _, p := range k.previous {
		if p.Decode(CSRFCookie, c.Value, &token) != nil {
			continue
		}
		enc, err := k.current.Encode(CSRFCookie, token)
		if err != nil {
			return r
		}
		http.SetCookie(w, &http.Cookie{Name: CSRFCookie, Value: enc, Path: "/", MaxAge: int((12 * time.Hour) / time.Second),
			Expires: time.Now().Add(12 * time.Hour), HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
		r = r.Clone(r.Context())
		var parts []string
		for _, rc := range r.Cookies() {
			if rc.Name == CSRFCookie {
				rc.Value = enc
			}
			parts = append(parts, rc.Name+"="+rc.Value)
		}
		r.Header.Set("Cookie", strings.Join(parts, "; "))
		return r
	}
	return r
}

// sessionFromPrevious reports whether the request's session cookie opens only
// under a previous key (so it is re-issued under the current one).
func (a *Auth) sessionFromPrevious(r *http.Request) bool {
	if len(a.cfg.Settings.SecretKeyPrevious) == 0 {
		return false
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	var values map[any]any
	return securecookie.DecodeMulti(SessionCookie, c.Value, &values, a.sessions.Codecs[0]) != nil
}
