package deploy

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds the links followed to resolve one path, as the
// operating systems do (Linux allows 40).
const maxLinkHops = 40

// checkLink decides what the symbolic link name of fsys may be zipped as. A
// link that resolves, through any chain of links, to a regular file inside
// the package is zipped with that file's content under the link's name, as
// Vespa's CLI does (its zip follows links to files). A link that resolves
// outside the package (a relative target climbing out, an absolute target
// elsewhere) is an error matching [ErrUnsafeLink] that names the link, so
// that a link to ~/.ssh or ~/.vespa never ships their files; so is a link to
// a directory (Vespa's CLI cannot zip one either) and one that cannot be
// resolved. It returns the path within fsys to read.
func (p *Package) checkLink(fsys fs.FS, name string) (string, error) {
	target, err := p.resolve(fsys, name)
	if err != nil {
		return "", fmt.Errorf("%w: %s in %s: %w", ErrUnsafeLink, name, p.name, err)
	}
	st, err := fs.Stat(fsys, target)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: %s in %s: %w", ErrUnsafeLink, name, p.name, err)
	case st.IsDir():
		return "", fmt.Errorf("%w: %s in %s links to the directory %s: replace the link by the directory or its files", ErrUnsafeLink, name, p.name, target)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%w: %s in %s links to %s, which is not a regular file", ErrUnsafeLink, name, p.name, target)
	}
	return target, nil
}

// outsideError is the cause of a link that leads out of the package.
type outsideError struct{ link, target string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("it resolves outside the package directory (%s points to %q); copy the file into the package instead", e.link, e.target)
}

// resolve follows the links on the way to name, component by component, in
// fsys's own namespace, and returns the slash path of what it leads to. An
// absolute target is accepted only in a directory package, and only when it
// names a place inside that directory.
func (p *Package) resolve(fsys fs.FS, name string) (string, error) {
	pending := strings.Split(name, "/")
	var cur []string
	hops := 0
	lastLink, lastTarget := name, "" // the link followed last, for the error
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", &outsideError{link: lastLink, target: lastTarget}
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := path.Join(append(cur, c)...)
		fi, err := fs.Lstat(fsys, next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := fs.ReadLink(fsys, next)
		if err != nil {
			return "", fmt.Errorf("reading the link %s: %w", next, err)
		}
		lastLink, lastTarget = next, target
		if filepath.IsAbs(target) || path.IsAbs(target) {
			rel, ok := p.inside(target)
			if !ok {
				return "", &outsideError{link: next, target: target}
			}
			cur, target = nil, rel
		}
		pending = append(strings.Split(filepath.ToSlash(target), "/"), pending...)
	}
	if len(cur) == 0 {
		return ".", nil
	}
	return path.Join(cur...), nil
}

// inside reports whether the absolute path target lies within the package's
// directory (its path as given, or with its own links resolved), and returns
// it relative to that directory.
func (p *Package) inside(target string) (string, bool) {
	if p.dir == "" {
		return "", false
	}
	dirs := []string{p.dir}
	if real, err := filepath.EvalSymlinks(p.dir); err == nil && real != p.dir {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		rel, err := filepath.Rel(d, filepath.Clean(target))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}
