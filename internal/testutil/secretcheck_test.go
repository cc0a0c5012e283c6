package testutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recordingTB records the failures of a helper under test.
type recordingTB struct {
	testing.TB
	failures []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func TestRefusedWithoutSecret(t *testing.T) {
	check := func(s string) error {
		switch {
		case strings.HasPrefix(s, "ok"):
			return nil
		case strings.HasPrefix(s, "leak"):
			return errors.New("bad " + s)
		}
		return errors.New("bad input")
	}
	rec := &recordingTB{TB: t}
	RefusedWithoutSecret(rec, "hunter2", check, "x:hunter2", "ok:hunter2", "leak:hunter2", "y")
	if len(rec.failures) != 2 || !strings.Contains(rec.failures[0], `"ok:hunter2" accepted`) ||
		!strings.Contains(rec.failures[1], `"leak:hunter2": the error shows the secret`) {
		t.Errorf("failures %q, want the accepted input and the leaking one", rec.failures)
	}
}
