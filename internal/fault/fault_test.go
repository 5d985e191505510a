package fault

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestHTTPStatusOfEveryKind(t *testing.T) {
	for k, want := range map[Kind]int{
		Internal: http.StatusInternalServerError, NotFound: http.StatusNotFound, Invalid: http.StatusBadRequest,
		Conflict: http.StatusConflict, Unauthorized: http.StatusUnauthorized, Forbidden: http.StatusForbidden,
		Unavailable: http.StatusBadGateway, Kind(99): http.StatusInternalServerError,
	} {
		if got := HTTPStatus(k); got != want {
			t.Errorf("HTTPStatus(%v) = %d, want %d", k, got, want)
		}
	}
}

// The safe sentence and the operator detail travel together and apart.
func TestSentenceAndDetail(t *testing.T) {
	detail := errors.New("GET /repos/acme/api: 502 with token ghs_secret")
	err := fmt.Errorf("dispatch: %w", New(Unavailable, "GitHub could not be reached; retry later", detail).WithCode("github_unavailable"))
	if KindOf(err) != Unavailable || !Is(err, Unavailable) || Is(err, Invalid) {
		t.Errorf("kind lost through wrapping: %v", KindOf(err))
	}
	if !errors.Is(err, detail) {
		t.Error("the detail must stay in the chain for operators")
	}
	if fe, _ := As(err); fe.Code != "github_unavailable" || fe.Public != "GitHub could not be reached; retry later" || fe.Error() != "GitHub could not be reached; retry later: "+detail.Error() {
		t.Errorf("fault = %+v (%q)", fe, fe.Error())
	}
	plain := errors.New("boom")
	if _, ok := As(plain); ok || KindOf(plain) != Internal || Is(nil, Internal) {
		t.Error("an unclassified error is internal, with no safe sentence")
	}
	if e := Newf(Invalid, "at most %d reviewers", 50); e.Error() != "at most 50 reviewers" || e.Unwrap() != nil {
		t.Errorf("Newf = %q", e.Error())
	}
	if Forbidden.String() != "forbidden" || Kind(42).String() != "kind(42)" {
		t.Error("kind names")
	}
}
