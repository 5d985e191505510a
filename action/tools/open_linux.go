//go:build linux

package tools

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// beneath holds the root's directory descriptor for openat2.
type beneath struct{ fd int }

func openBeneathRoot(dir string) (beneath, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return beneath{fd: -1}, err
	}
	// Probe: where openat2 is missing or filtered (old kernels, seccomp),
	// use the os.Root instead of failing every open.
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY, Resolve: unix.RESOLVE_BENEATH}
	probe, err := unix.Openat2(fd, ".", &how)
	if err != nil {
		unix.Close(fd)
		return beneath{fd: -1}, nil
	}
	unix.Close(probe)
	return beneath{fd: fd}, nil
}

func (b beneath) close() {
	if b.fd >= 0 {
		unix.Close(b.fd)
	}
}

// openNoSymlinks opens rel below the root in one race-free step: the kernel
// refuses any path that leaves the root or passes through a symlink
// (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS). The walk never follows symlinks,
// so every path it produces qualifies. Without openat2 it falls back to the
// os.Root, which is as safe and slower.
func (f *FS) openNoSymlinks(rel string) (*os.File, error) {
	if f.beneath.fd < 0 {
		return f.root.Open(rel)
	}
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(f.beneath.fd, rel, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), rel), nil
		case errors.Is(err, unix.EINTR):
			continue
		default:
			return nil, &os.PathError{Op: "openat2", Path: rel, Err: err}
		}
	}
}
