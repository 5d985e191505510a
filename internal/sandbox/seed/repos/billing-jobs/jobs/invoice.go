// Package jobs holds the billing jobs of the sandbox repository acme/billing-jobs.
package jobs

import "fmt"

// InvoiceLine is one charge on a customer's invoice, in cents.
type InvoiceLine struct {
	Description string
	Cents       int64
}

// Total sums the lines of an invoice.
func Total(lines []InvoiceLine) int64 {
	var t int64
	for _, l := range lines {
		t += l.Cents
	}
	return t
}

// Format renders an amount in cents as dollars.
func Format(cents int64) string {
	return fmt.Sprintf("$%d.%02d", cents/100, cents%100)
}
