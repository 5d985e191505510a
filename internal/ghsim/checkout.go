package ghsim

// FilesAt returns a copy of every file of repo at ref (branch or sha), as a
// checkout would have them; false when ref is unknown. The sandbox's simulated
// Actions runner checks out with it.
func (s *Sim) FilesAt(repoName, ref string) (map[string]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	c := r.commits[s.resolve(r, ref)]
	if c == nil {
		return nil, false
	}
	out := make(map[string]string, len(c.files))
	for k, v := range c.files {
		out[k] = v
	}
	return out, true
}
