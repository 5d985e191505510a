package main

import (
	"database/sql"
	"log"
	"net/http"

	"example.com/payments-api/internal/store"
)

func main() {
	db, err := sql.Open("postgres", "postgres://localhost/payments")
	if err != nil {
		log.Fatal(err)
	}
	s := store.New(db)
	http.HandleFunc("/charges", s.HandleCharges)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
