package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/chakshu-dev/chakshu/action/internal/ghlog"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// maxEvidenceFile is the largest workspace file the evidence check reads;
// findings on larger files are left to the server's check.
const maxEvidenceFile = 8 << 20

// checkEvidence looks up each finding's quote in the workspace file at the
// head commit (findings.CheckEvidence): a finding whose quote is on its
// lines is kept, one whose quote is within findings.EvidenceWindow lines is
// moved there (evidence_moved_from keeps the agent's line), and one whose
// quote is not in the file, or only farther away, is dropped and listed
// with why. Findings on side LEFT (the base commit, not in the workspace),
// and on files the workspace left out or too large to read, are passed on
// unchecked: the server checks every finding again. It changes res in
// place and returns what the check did.
func checkEvidence(fsys *tools.FS, res *findings.Result) *runnerproto.EvidenceReport {
	rep := &runnerproto.EvidenceReport{}
	files := map[string]*string{} // path → content; nil when it cannot be checked
	content := func(p string) *string {
		if c, ok := files[p]; ok {
			return c
		}
		c, err := readWorkspaceFile(fsys, p)
		if err != nil {
			files[p] = nil
			return nil
		}
		files[p] = &c
		return &c
	}
	kept := res.Findings[:0:0]
	for _, f := range res.Findings {
		var c *string
		if f.Side != "LEFT" {
			c = content(f.Path)
		}
		if c == nil {
			rep.Unchecked++
			kept = append(kept, f)
			continue
		}
		chk := findings.CheckEvidence(*c, &f)
		switch chk.Verdict {
		case findings.EvidenceKept:
			rep.Kept++
		case findings.EvidenceMoved:
			rep.Moved++
			f.MoveTo(chk)
		case findings.EvidenceDropped:
			rep.Dropped++
			if len(rep.DroppedFindings) < findings.MaxFindings {
				rep.DroppedFindings = append(rep.DroppedFindings, runnerproto.DroppedFinding{
					Path: f.Path, Line: f.Line, Title: f.Title, Evidence: f.Evidence, Reason: chk.Reason})
			}
			continue
		default:
			rep.Unchecked++
		}
		kept = append(kept, f)
	}
	res.Findings = kept
	return rep
}

// readWorkspaceFile reads a file of the workspace through its root (no
// symlink leaves it), at most maxEvidenceFile bytes.
func readWorkspaceFile(fsys *tools.FS, p string) (string, error) {
	f, _, err := fsys.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fs.ErrInvalid
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEvidenceFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxEvidenceFile {
		return "", errors.New("file too large for the evidence check")
	}
	return string(b), nil
}

// logEvidence writes what the check did to the Actions log.
func logEvidence(w io.Writer, rep *runnerproto.EvidenceReport) {
	fmt.Fprintf(w, "Evidence check: %d kept, %d moved, %d dropped, %d left to Chakshu\n", rep.Kept, rep.Moved, rep.Dropped, rep.Unchecked)
	for _, d := range rep.DroppedFindings {
		fmt.Fprintf(w, "  dropped %s:%d %s (%s)\n", ghlog.Escape(d.Path), d.Line, ghlog.Escape(fmt.Sprintf("%q", d.Title)), ghlog.Escape(d.Reason))
	}
}
