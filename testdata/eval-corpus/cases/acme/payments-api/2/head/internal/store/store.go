package store

import (
	"database/sql"
	"encoding/json"
	"net/http"
)

// Store reads and writes payments.
type Store struct{ db *sql.DB }

// New returns a Store on db.
func New(db *sql.DB) *Store { return &Store{db: db} }

// Charge is one card charge.
type Charge struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Amount   int64  `json:"amount"`
}

// ChargesFor lists a customer's charges.
func (s *Store) ChargesFor(customer string) ([]Charge, error) {
	rows, err := s.db.Query("SELECT id, customer, amount FROM charges WHERE customer = $1", customer)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Charge
	for rows.Next() {
		var c Charge
		if err := rows.Scan(&c.ID, &c.Customer, &c.Amount); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// HandleCharges serves GET /charges?customer=….
func (s *Store) HandleCharges(w http.ResponseWriter, r *http.Request) {
	charges, err := s.ChargesFor(r.URL.Query().Get("customer"))
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	json.NewEncoder(w).Encode(charges)
}

// TotalFor sums a customer's charges, in cents.
func (s *Store) TotalFor(customer string) (int64, error) {
	var total sql.NullInt64
	err := s.db.QueryRow("SELECT sum(amount) FROM charges WHERE customer = $1", customer).Scan(&total)
	if err != nil {
		return 0, err
	}
	return total.Int64, nil
}
