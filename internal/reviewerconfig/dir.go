package reviewerconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
)

// Local is a reviewer read from a directory on disk (`chakshu eval`), parsed
// by the same code as a sync of the reviewers repository.
type Local struct {
	Name     string
	Config   Config
	ClaudeMD string
	Skills   []Skill
}

// LoadDir reads every reviewer folder of dir (a reviewers repository's
// reviewers/ folder: <name>/reviewer.yaml, CLAUDE.md, skills/). A reviewer
// that would fail to sync fails here, with the same message.
func LoadDir(dir string, src *models.Source, now time.Time) ([]Local, error) {
	return LoadFS(os.DirFS(dir), dir, src, now)
}

// LoadFS is LoadDir over a file system; dir names it in errors.
func LoadFS(fsys fs.FS, dir string, src *models.Source, now time.Time) ([]Local, error) {
	if src == nil {
		src = models.Static(models.Builtin())
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("reviewers %s: %w", dir, err)
	}
	f := &fetcher{models: src, now: now, local: func(p string, limit int) (string, error) {
		rel := strings.TrimPrefix(p, "reviewers/")
		fh, err := fsys.Open(rel)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path.Join(dir, rel), err)
		}
		defer fh.Close()
		b, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path.Join(dir, rel), err)
		}
		if len(b) > limit {
			return "", problem(p, "file is over the %d byte limit", limit)
		}
		return string(b), nil
	}}
	var out []Local
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := e.Name()
		if !ValidName(name) {
			return nil, fmt.Errorf("reviewers/%s: folder name is not a reviewer name (want [a-z0-9-]{1,64})", name)
		}
		var files []file
		err := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, file{path: strings.TrimPrefix(p, name+"/"), size: int(info.Size())})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reviewers %s: %w", dir, err)
		}
		sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
		pr, err := f.reviewer(context.Background(), name, files)
		if err != nil {
			return nil, err
		}
		if pr.err != nil {
			return nil, pr.err
		}
		out = append(out, Local{Name: name, Config: pr.config, ClaudeMD: pr.claudeMD, Skills: append([]Skill{}, pr.skills...)})
	}
	if len(out) == 0 {
		return nil, errors.New("reviewers " + dir + ": no reviewer folders")
	}
	return out, nil
}
