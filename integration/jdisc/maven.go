package jdisc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

var (
	// probeTimeout bounds the check that Maven's repository answers, so
	// that a black-holed route costs seconds, not Maven's connect timeouts.
	probeTimeout = 5 * time.Second
	// onlineTimeout bounds mvn's online build (about 131 MB to download):
	// beyond it the mirror is too slow to count as reachable.
	onlineTimeout = 10 * time.Minute
)

// envMavenRepository names the repository the probe asks, instead of the
// first mirror of ~/.m2/settings.xml or Maven Central.
const envMavenRepository = "GOVESPA_MAVEN_REPOSITORY"

const mavenCentral = "https://repo.maven.apache.org/maven2/"

var mirrorURL = regexp.MustCompile(`(?s)<mirror>.*?<url>\s*([^<\s]+)\s*</url>`)

// repository is the URL Maven downloads from: GOVESPA_MAVEN_REPOSITORY, the
// first mirror of ~/.m2/settings.xml, or Maven Central.
func repository() string {
	if u := os.Getenv(envMavenRepository); u != "" {
		return u
	}
	if home, err := os.UserHomeDir(); err == nil {
		if b, err := os.ReadFile(filepath.Join(home, ".m2", "settings.xml")); err == nil { //nolint:gosec // the user's own Maven settings
			if m := mirrorURL.FindSubmatch(b); m != nil {
				return string(m[1])
			}
		}
	}
	return mavenCentral
}

// probeRepository returns an error wrapping ErrUnavailable unless Maven's
// repository answers an HTTP request (any status) within probeTimeout.
func probeRepository(ctx context.Context) error {
	repo := repository()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, repo, nil)
	if err != nil {
		return fmt.Errorf("%w: Maven repository %q: %w", ErrUnavailable, repo, err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: the jars are not in ~/.m2 and Maven's repository %s did not answer within %v (%s)", ErrUnavailable, repo, probeTimeout, orTimeout(err))
	}
	_ = resp.Body.Close()
	return nil
}

// unreachable reports whether mvn's output says a download failed on the
// network rather than on the build.
func unreachable(out string) bool {
	for _, s := range []string{"Could not transfer", "Connect timed out", "Read timed out", "UnknownHostException",
		"Network is unreachable", "No route to host", "Connection refused", "Temporary failure in name resolution"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// orTimeout names a deadline as a timeout and keeps any other error's text.
func orTimeout(err error) string {
	switch {
	case err == nil:
		return "failed"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return err.Error()
}
