package gh

import (
	"context"
	"fmt"

	"github.com/google/go-github/v88/github"
)

// GitHub lists at most MaxPRFiles files of a pull request, 100 a page at
// most: 30 pages (docs.github.com, "List pull requests files": "Responses
// include a maximum of 3000 files"; internal/ghsim/API.md).
const (
	MaxPRFiles      = 3000
	prFilesPerPage  = 100
	maxPRFilesPages = MaxPRFiles / prFilesPerPage
)

// ListPRFiles lists the files pull request n of owner/name touches, with
// their patches as GitHub gives them: every caller lists a PR's files here.
func ListPRFiles(ctx context.Context, c *github.Client, owner, name string, n int) ([]*github.CommitFile, error) {
	var out []*github.CommitFile
	opt := &github.ListOptions{PerPage: prFilesPerPage}
	for page := 0; page < maxPRFilesPages && len(out) < MaxPRFiles; page++ {
		fs, resp, err := c.PullRequests.ListFiles(ctx, owner, name, n, opt)
		if err != nil {
			return nil, fmt.Errorf("list files of %s/%s#%d: %w", owner, name, n, err)
		}
		out = append(out, fs...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}
