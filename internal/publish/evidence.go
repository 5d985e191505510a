package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/logging"
)

// MaxEvidenceFile is the largest file the publisher reads to check a
// quote; a finding on a larger file is published unchecked.
const MaxEvidenceFile = 8 << 20

// evidenceCheck is what the publisher's own evidence check decided.
type evidenceCheck struct {
	// kept are the findings to publish (moved ones on their new lines).
	kept []findings.Finding
	// dropped are the findings whose quote is not in the file (or only far
	// from their lines), as plan items that are not posted.
	dropped []Item
	// moved and fetched count moved findings and contents calls made;
	// unchecked counts findings published with a quote nobody could check
	// (the file is over MaxEvidenceFile, or the run has no commit for its side).
	moved, fetched, unchecked int
}

// checkEvidence checks every finding's quote again, on the server: the
// runner runs on a machine Chakshu does not control, so its own check
// (which already moved and dropped) is not trusted. The quote is looked up
// in the lines the PR's patch shows first (the files list is already read:
// no call); only when the patch cannot decide (the finding is outside the
// changed lines, or its quote is not there) is the file read at the head
// commit (base for side LEFT), with one contents call per file at most.
// Findings without evidence (runners of protocol 1) are published unchecked.
func (p *Publisher) checkEvidence(ctx context.Context, rest *github.Client, r *ent.Run, pr repoRef, fs []findings.Finding, diff *diffmap.Map) (*evidenceCheck, error) {
	log := logging.From(ctx)
	out := &evidenceCheck{}
	type fileAt struct{ path, ref string }
	files := map[fileAt]*string{} // nil: not in the commit
	tooBig := map[fileAt]bool{}
	for _, f := range fs {
		if strings.TrimSpace(f.Evidence) == "" {
			out.kept = append(out.kept, f)
			continue
		}
		side := f.Side
		if side == "" {
			side = diffmap.Right
		}
		var c findings.EvidenceCheck
		final := false
		if known := diff.File(f.Path).Lines(side); len(known) > 0 {
			c, final = findings.CheckEvidenceKnown(known, &f)
		}
		if !final {
			ref := r.HeadSha
			if side == diffmap.Left {
				ref = r.BaseSha
			}
			at := fileAt{f.Path, ref}
			content, seen := files[at]
			if !seen && !tooBig[at] && ref != "" {
				text, err := readFileAt(ctx, rest, pr, f.Path, ref)
				out.fetched++
				switch {
				case errors.Is(err, errFileTooBig):
					tooBig[at] = true
				case errors.Is(err, errNoFile):
					files[at] = nil
				case err != nil:
					return nil, err
				default:
					files[at] = &text
				}
				content = files[at]
			}
			switch {
			case tooBig[at] || ref == "":
				log.Info("evidence unchecked", "path", f.Path, "side", side)
				out.unchecked++
				out.kept = append(out.kept, f)
				continue
			case content == nil:
				c = findings.EvidenceCheck{Verdict: findings.EvidenceDropped, Reason: findings.DropEvidenceMissing}
			default:
				c = findings.CheckEvidence(*content, &f)
			}
		}
		switch c.Verdict {
		case findings.EvidenceDropped:
			out.dropped = append(out.dropped, Item{Finding: f, HiddenID: f.ID(), Placement: PlaceNone, Dropped: c.Reason})
			continue
		case findings.EvidenceMoved:
			f.MoveTo(c)
			out.moved++
		}
		out.kept = append(out.kept, f)
	}
	if len(out.dropped) > 0 || out.moved > 0 {
		log.Info("evidence check", "dropped", len(out.dropped), "moved", out.moved, "contents_calls", out.fetched)
	}
	return out, nil
}

var (
	errNoFile     = errors.New("file not in the commit")
	errFileTooBig = errors.New("file too large for the evidence check")
)

// readFileAt reads a file's text at a commit with the raw media type
// (needed above 1 MB: docs "Get repository content"; GitHub changelog
// 2022-05-03), at most MaxEvidenceFile bytes.
func readFileAt(ctx context.Context, rest *github.Client, pr repoRef, path, ref string) (string, error) {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", url.PathEscape(pr.owner), url.PathEscape(pr.name), strings.Join(segs, "/"), url.QueryEscape(ref))
	req, err := rest.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("read %s for its evidence: %w", path, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := rest.BareDo(req)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "", errNoFile
	}
	if err != nil {
		return "", fmt.Errorf("read %s for its evidence: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxEvidenceFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s for its evidence: %w", path, err)
	}
	if len(b) > MaxEvidenceFile {
		return "", errFileTooBig
	}
	return string(b), nil
}
