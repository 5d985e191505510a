package diffmap

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/go-github/v88/github"
)

// FilesOf converts GitHub's diff entries (a PR's files list).
func FilesOf(fs []*github.CommitFile) []FileInfo {
	out := make([]FileInfo, len(fs))
	for i, f := range fs {
		out[i] = FileInfo{Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus(),
			Patch: f.GetPatch(), Additions: f.GetAdditions(), Deletes: f.GetDeletions()}
	}
	return out
}

// storedFile is a FileInfo as a run stores it, with short keys.
type storedFile struct {
	Path     string `json:"p"`
	Previous string `json:"o,omitempty"`
	Status   string `json:"s,omitempty"`
	Patch    string `json:"d,omitempty"`
	Add      int    `json:"a,omitempty"`
	Del      int    `json:"r,omitempty"`
}

// EncodeFiles is files as a run stores them (runs.pr_files): gzip'd JSON,
// a few times smaller than the patches it holds.
func EncodeFiles(files []FileInfo) ([]byte, error) {
	st := make([]storedFile, len(files))
	for i, f := range files {
		st[i] = storedFile{Path: f.Path, Previous: f.PreviousPath, Status: f.Status, Patch: f.Patch, Add: f.Additions, Del: f.Deletes}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(st); err != nil {
		return nil, fmt.Errorf("encode PR files: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("encode PR files: %w", err)
	}
	return buf.Bytes(), nil
}

// DecodeFiles reads what EncodeFiles wrote.
func DecodeFiles(b []byte) ([]FileInfo, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode PR files: %w", err)
	}
	var st []storedFile
	if err := json.NewDecoder(io.LimitReader(zr, 64<<20)).Decode(&st); err != nil {
		return nil, fmt.Errorf("decode PR files: %w", err)
	}
	out := make([]FileInfo, len(st))
	for i, f := range st {
		out[i] = FileInfo{Path: f.Path, PreviousPath: f.Previous, Status: f.Status, Patch: f.Patch, Additions: f.Add, Deletes: f.Del}
	}
	return out, nil
}
