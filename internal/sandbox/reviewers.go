package sandbox

import "io/fs"

// ReviewersFS is the seeded reviewers repository's reviewers/ folder
// (`chakshu eval` runs these reviewers unless told otherwise).
func ReviewersFS() fs.FS {
	sub, err := fs.Sub(seedFS, "seed/reviewers")
	if err != nil {
		panic(err) // the folder is embedded: a typo here fails every test
	}
	return sub
}
