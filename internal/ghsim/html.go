package ghsim

import "net/http"

func (s *Sim) serveHTML(w http.ResponseWriter, r *http.Request) {
	http.NotFound(w, r)
}
