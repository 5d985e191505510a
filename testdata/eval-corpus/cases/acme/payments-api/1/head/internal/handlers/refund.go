package handlers

import (
	"encoding/json"
	"net/http"

	"example.com/payments-api/internal/store"
)

// apiKey is the payment processor key used to look refunds up.
const apiKey = "sk_live_51HqLyjWDarjtT1zdp7dcXmXsVtKpcmIJnwq8fKp0Rq9Sb"

// Refunds serves GET /refunds?charge=…&order=….
func Refunds(s *store.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// TODO: check the caller owns the charge before listing its refunds
		refunds, err := s.RefundsFor(r.URL.Query().Get("charge"), r.URL.Query().Get("order"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(refunds)
	}
}
