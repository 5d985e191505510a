package runnerapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/version"
)

func TestCappedTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 100))
	}))
	defer srv.Close()
	for _, c := range []struct {
		name string
		max  int64
		ok   bool
	}{{"under", 200, true}, {"exact", 100, true}, {"over", 99, false}} {
		t.Run(c.name, func(t *testing.T) {
			hc := &http.Client{Transport: cappedTransport{max: c.max}}
			resp, err := hc.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if (err == nil) != c.ok || (c.ok && len(b) != 100) {
				t.Fatalf("read %d bytes, err %v", len(b), err)
			}
		})
	}
}

// A hostile or broken issuer cannot make Chakshu read an unbounded discovery
// document; the job answer says verification is unavailable.
func TestOIDCDiscoveryCapped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		huge := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "application/json")
			io.WriteString(rw, `{"issuer":"`+strings.Repeat("a", 2<<20)+`"}`)
		}))
		defer huge.Close()
		api, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: w.apps, Issuer: huge.URL, Audience: audience, PublicURL: "http://chakshu.test"})
		if err != nil {
			t.Fatal(err)
		}
		w.srv = newServer(t, api)
		rn := w.dispatch(run.KindReview)
		var e runnerproto.Error
		if st := w.do(runnerproto.PathJob, runnerproto.JobRequest{RunID: int64(rn.ID), RunnerVersion: version.Version}, bearer(w.token(rn)), &e); st != 503 || e.Error.Code != "oidc_unavailable" {
			t.Fatalf("got %d %+v", st, e)
		}
	})
}
