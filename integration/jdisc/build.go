package jdisc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// module is the harness's Maven module: its pom and Java sources.
//
//go:embed pom.xml src
var module embed.FS

// ErrUnavailable is returned (wrapped) by [Check], [Build] and [Start] when
// the machine cannot build or run the harness — java or mvn is missing, or
// the jars are not in ~/.m2 and Maven's repository does not answer — so
// that callers skip instead of failing.
var ErrUnavailable = errors.New("jdisc: the JDisc harness cannot be built here")

// Tools are the programs the harness needs, found on PATH (java under
// JAVA_HOME when that is set).
type Tools struct {
	Java string
	Mvn  string
}

// Check finds java and mvn. Its error wraps [ErrUnavailable] and names what
// is missing.
func Check() (Tools, error) {
	var t Tools
	var missing []string
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if p := filepath.Join(home, "bin", "java"); isExecutable(p) {
			t.Java = p
		}
	}
	if t.Java == "" {
		if p, err := exec.LookPath("java"); err == nil {
			t.Java = p
		} else {
			missing = append(missing, "java")
		}
	}
	if p, err := exec.LookPath("mvn"); err == nil {
		t.Mvn = p
	} else {
		missing = append(missing, "mvn")
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("%w: %s not found on PATH", ErrUnavailable, strings.Join(missing, " and "))
	}
	return t, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p) //nolint:gosec // $JAVA_HOME/bin/java
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Built is a built harness: its jar and the class path of its dependencies.
type Built struct {
	Tools
	// Dir is the cache directory of this build.
	Dir string
	// Jar is the harness's own jar.
	Jar string
	// ClassPath is the dependencies' class path (jars in the local Maven
	// repository), as mvn dependency:build-classpath wrote it.
	ClassPath string
	// Cached reports whether the build was found in the cache.
	Cached bool
}

// SourceHash is the hash of the embedded Maven module that keys the cache.
func SourceHash() (string, error) {
	var names []string
	err := fs.WalkDir(module, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := module.ReadFile(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// CacheDir is where builds are kept: $GOVESPA_JDISC_CACHE, else the user
// cache directory's govespa/jdisc.
func CacheDir() (string, error) {
	if d := os.Getenv("GOVESPA_JDISC_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("jdisc: no cache directory (set GOVESPA_JDISC_CACHE): %w", err)
	}
	return filepath.Join(d, "govespa", "jdisc"), nil
}

// Build returns the harness built from the embedded module, building it with
// mvn (offline first, then online) unless the cache holds this source hash
// already and every jar of its class path still exists. log receives mvn's
// output; nil discards it.
func Build(ctx context.Context, log func(string)) (*Built, error) {
	tools, err := Check()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = func(string) {}
	}
	hash, err := SourceHash()
	if err != nil {
		return nil, fmt.Errorf("jdisc: hashing the module: %w", err)
	}
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, hash)
	if b, err := readBuilt(dir, tools); err == nil {
		b.Cached = true
		return b, nil
	}
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, fmt.Errorf("jdisc: cache directory: %w", err)
	}
	tmp, err := os.MkdirTemp(root, hash+".build-")
	if err != nil {
		return nil, fmt.Errorf("jdisc: cache directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := writeModule(tmp); err != nil {
		return nil, err
	}
	if err := runMaven(ctx, tools, tmp, log); err != nil {
		return nil, err
	}
	_ = os.RemoveAll(dir) // an incomplete or stale build of the same sources
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have finished the same build first.
		if b, rerr := readBuilt(dir, tools); rerr == nil {
			return b, nil
		}
		return nil, fmt.Errorf("jdisc: keeping the build: %w", err)
	}
	return readBuilt(dir, tools)
}

func writeModule(dir string) error {
	return fs.WalkDir(module, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o750)
		}
		b, err := module.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
}

// runMaven packages the module in dir, offline first (fast, no network once
// ~/.m2 holds everything), then online, once Maven's repository has
// answered a bounded probe; online, mvn is bounded by onlineTimeout.
func runMaven(ctx context.Context, t Tools, dir string, log func(string)) error {
	var out bytes.Buffer
	for _, offline := range []bool{true, false} {
		args := []string{"-B", "-q", "package"}
		mctx := ctx
		if offline {
			args = append([]string{"-o"}, args...)
		} else {
			if err := probeRepository(ctx); err != nil {
				return err
			}
			var cancel context.CancelFunc
			mctx, cancel = context.WithTimeout(ctx, onlineTimeout)
			defer cancel()
		}
		cmd := exec.CommandContext(mctx, t.Mvn, args...) //nolint:gosec // the mvn found on PATH, with this package's own arguments
		cmd.Dir = dir
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &out
		log(fmt.Sprintf("jdisc: %s %s (in %s)", t.Mvn, strings.Join(args, " "), dir))
		err := cmd.Run()
		log(out.String())
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("jdisc: mvn: %w", ctx.Err())
		}
		if !offline && (mctx.Err() != nil || unreachable(out.String())) {
			return fmt.Errorf("%w: mvn could not download the harness's jars (%s): %s", ErrUnavailable, orTimeout(mctx.Err()), lastLines(out.String(), 3))
		}
	}
	return fmt.Errorf("jdisc: mvn package failed in %s (JDK 17 must run Maven; Maven Central must be reachable once):\n%s", dir, lastLines(out.String(), 30))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// readBuilt returns the build in dir when it is complete: the jar, the class
// path file, and every jar the class path names.
func readBuilt(dir string, t Tools) (*Built, error) {
	jar := filepath.Join(dir, "target", "jdisc-harness-1.jar")
	if _, err := os.Stat(jar); err != nil {
		return nil, err
	}
	cp, err := os.ReadFile(filepath.Join(dir, "target", "cp.txt"))
	if err != nil {
		return nil, err
	}
	classPath := strings.TrimSpace(string(cp))
	for _, p := range filepath.SplitList(classPath) {
		if _, err := os.Stat(p); err != nil { //nolint:gosec // a jar of the class path mvn wrote for this build
			return nil, fmt.Errorf("jdisc: %s is gone from the local Maven repository", p)
		}
	}
	return &Built{Tools: t, Dir: dir, Jar: jar, ClassPath: classPath}, nil
}

// VespaVersion is the version of Vespa's artifacts the harness runs, as
// pom.xml pins it (8.738.17, the version of Vespa's CLI here, is not whole on
// Maven Central: container-test, application, container-disc,
// container-search, documentapi and config-model stop at 8.700.24).
const VespaVersion = "8.700.24"
