package gh

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub's GraphQL API signals its rate limits otherwise than REST ("Rate
// limits and node limits for the GraphQL API", Exceeding the rate limit):
//
//   - the primary limit (points per hour) answers 200, with an error in the
//     body and x-ratelimit-remaining 0; nothing may be sent before
//     x-ratelimit-reset. The error's type is RATE_LIMITED
//     (octokit/plugin-throttling.js, src/wrap-request.ts), lately also
//     RATE_LIMIT with code graphql_rate_limit (yanyongyu/githubkit#271,
//     octokit/plugin-throttling.js#848), and x-ratelimit-remaining may not
//     be 0 on it (octokit/plugin-throttling.js#632, #636): the body decides.
//   - a secondary limit answers 200 or 403 with a message saying so:
//     Retry-After when present, x-ratelimit-reset when remaining is 0,
//     otherwise at least a minute, growing.
//
// githubv4 turns a 200 with errors into an error carrying only the message,
// and any other status into "non-200 OK status code", losing the headers:
// the transport reads the answer first and returns a *GraphQLRateLimitError
// instead, which WaitFor, Primary and Secondary recognise as they do
// go-github's REST errors.

// GraphQLRateLimitError is a GraphQL request GitHub refused for a rate limit.
type GraphQLRateLimitError struct {
	// Until is when the request may be sent again.
	Until time.Time
	// Primary: the installation's GraphQL points are spent until the reset.
	Primary bool
	// Growing: a secondary limit without Retry-After or reset (the wait is a
	// minute, doubling while they keep coming).
	Growing bool
	// Status is the HTTP status GitHub answered (200 or 403); Message its error.
	Status  int
	Message string
}

func (e *GraphQLRateLimitError) Error() string {
	kind := "secondary"
	if e.Primary {
		kind = "primary"
	}
	return "GitHub GraphQL " + kind + " rate limit (" + strconv.Itoa(e.Status) + "): " + e.Message
}

// isGraphQL reports a request to GitHub's GraphQL endpoint (/graphql on
// github.com, /api/graphql on Enterprise Server and the simulator).
func isGraphQL(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/graphql")
}

// graphQLBodyLimit caps what is read of a GraphQL answer to look for a rate
// limit; githubv4 reads the whole answer anyway.
const graphQLBodyLimit = 32 << 20

// graphQLLimited reads a GraphQL answer and returns the rate limit it
// reports, nil when it reports none (the answer is left readable). hits
// counts this request's consecutive secondary limits for the growing wait.
func (t *RetryTransport) graphQLLimited(resp *http.Response, key string, now time.Time) *GraphQLRateLimitError {
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, graphQLBodyLimit))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	e := &GraphQLRateLimitError{Status: resp.StatusCode}
	if resp.StatusCode == http.StatusOK {
		if !bytes.Contains(body, []byte(`"errors"`)) {
			return nil
		}
		var out struct {
			Errors []struct{ Type, Code, Message string }
		}
		if json.Unmarshal(body, &out) != nil {
			return nil
		}
		limited := false
		for _, x := range out.Errors {
			switch {
			case x.Type == "RATE_LIMITED" || x.Type == "RATE_LIMIT" || x.Code == "graphql_rate_limit":
				e.Primary, e.Message, limited = !secondaryText(x.Message), x.Message, true
			case secondaryText(x.Message):
				e.Message, limited = x.Message, true
			}
			if limited {
				break
			}
		}
		if !limited {
			return nil
		}
	} else {
		if _, _, ok := askedWait(resp, body, 1, now); !ok {
			return nil // a permission refusal
		}
		var out struct{ Message string }
		json.Unmarshal(body, &out) //nolint:errcheck // the message is for logs
		e.Message = out.Message
		e.Primary = resp.Header.Get("X-Ratelimit-Remaining") == "0" && !secondaryText(out.Message)
	}
	reset, hasReset := int64(0), false
	if v, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
		reset, hasReset = v, true
	}
	switch {
	case e.Primary && hasReset:
		// "You should not retry your request until after the time specified
		// by the x-ratelimit-reset header", whatever remaining says (#636).
		e.Until = maxTime(now, time.Unix(reset, 0).Add(time.Second))
	case resp.Header.Get("Retry-After") != "":
		s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || s < 0 {
			s = 0
		}
		e.Until = now.Add(time.Duration(s) * time.Second)
	case resp.Header.Get("X-Ratelimit-Remaining") == "0" && hasReset:
		e.Until = maxTime(now, time.Unix(reset, 0).Add(time.Second))
	default:
		e.Growing = true
		e.Until = now.Add(growing(t.hits.hit(key)))
	}
	return e
}

func secondaryText(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "secondary rate limit")
}
