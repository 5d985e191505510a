package ghwrite

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v88/github"
)

// Enterprise Server refuses return_run_details with 422
// (benc-uk/workflow-dispatch#86); a release answering an unknown body key
// with 400 is taken the same way. Other refusals are not.
func TestRefusesRunDetails(t *testing.T) {
	answer := func(status int, msg string) (*github.Response, error) {
		resp := &http.Response{StatusCode: status, Request: &http.Request{Method: "POST"}}
		return &github.Response{Response: resp}, &github.ErrorResponse{Response: resp, Message: msg}
	}
	cases := []struct {
		name   string
		status int
		msg    string
		want   bool
	}{
		{"422 naming the key", 422, `"return_run_details" is not a permitted key.`, true},
		{"400 naming the key", 400, `"return_run_details" is not a permitted key.`, true},
		{"422 for unexpected inputs", 422, `Unexpected inputs provided: ["x"]`, false},
		{"404", 404, "Not Found", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := answer(tc.status, tc.msg)
			if got := refusesRunDetails(resp, err); got != tc.want {
				t.Fatalf("refusesRunDetails = %v, want %v", got, tc.want)
			}
		})
	}
	if refusesRunDetails(nil, errors.New("return_run_details")) {
		t.Fatal("an error without an answer taken for the refusal")
	}
}
