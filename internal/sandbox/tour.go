package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Try is one of the things a first-time user is shown to try in the
// sandbox, with a direct link that leads to its rendered result.
type Try struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	URL   string `json:"url"`
}

// Tour is the things to try, as the portal's first page shows them:
// comment on a PR, ask from "Review a PR", reply in one of Chakshu's threads
// (the first thread Chakshu opened, once a review has landed), and — once
// SeedBacktest opened it — the reviewer change being backtested.
func (sb *Sandbox) Tour() []Try {
	tries := sb.firstThree()
	if n := sb.BacktestPR(); n != 0 {
		tries = append(tries, Try{ID: "backtest", Title: "See a reviewer change backtested",
			Text: fmt.Sprintf("%s#%d adds the correctness rules to the style reviewer: Chakshu replays style's last reviews with both versions in shadow runs (Runs → Backtest runs) and comments on the pull request what the change keeps, adds and drops.", ReviewersRepo, n),
			URL:  fmt.Sprintf("%s/%s/pull/%d", sb.Sim.PagesURL(), ReviewersRepo, n)})
	}
	return tries
}

func (sb *Sandbox) firstThree() []Try {
	pages := sb.Sim.PagesURL()
	slug := sb.opts.AppSlug
	first := sb.PRs[0]
	second := sb.PRs[len(sb.PRs)-1]
	prURL := func(p SeededPR) string { return fmt.Sprintf("%s/%s/pull/%d", pages, p.Repo, p.Number) }
	tries := []Try{
		{ID: "comment", Title: "Comment on a pull request",
			Text: fmt.Sprintf("Open %s#%d and comment “@%s review”. Its reviewers' reviews, inline comments and checks appear on the PR within seconds.", first.Repo, first.Number, slug),
			URL:  prURL(first) + "#comment"},
		{ID: "review", Title: "Ask from “Review a PR”",
			Text: fmt.Sprintf("Choose reviewers for %s#%d and queue them; each run links to its review and its Actions log.", second.Repo, second.Number),
			URL:  "/review?pr=" + url.QueryEscape(prURL(second))},
	}
	reply := Try{ID: "reply", Title: "Reply in one of Chakshu's threads",
		Text: "Once a review has landed, answer one of its inline comments (“fixed”, or “this is a false positive”): Chakshu replies in the thread.",
		URL:  prURL(first) + "/files"}
	bot := strings.ToLower(slug + "[bot]")
	for _, p := range sb.PRs {
		for _, th := range sb.Sim.Threads(p.Repo, p.Number) {
			if strings.ToLower(th.RootAuthor) == bot && !th.Resolved && !th.Outdated && len(th.CommentIDs) > 0 {
				reply.Text = fmt.Sprintf("Answer Chakshu's comment on %s in %s#%d (“fixed”, or “this is a false positive”): Chakshu replies in the thread.", th.Path, p.Repo, p.Number)
				reply.URL = fmt.Sprintf("%s/files#thread-%d", prURL(p), th.CommentIDs[0])
				return append(tries, reply)
			}
		}
	}
	return append(tries, reply)
}

// TourHandler serves Tour as JSON for the portal (GET /api/sandbox/tour).
func (sb *Sandbox) TourHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(map[string]any{"tries": sb.Tour()})
	})
}
