package webhook

// Facts is facts for the external tests (BenchmarkFacts).
func Facts(payload []byte) error {
	_, err := facts(payload)
	return err
}
