package testutil

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// NoticePrefix starts every line Notice writes, so that a test that runs
// another module's tests (internal/workspace) can pass such lines on.
const NoticePrefix = "govespa: "

var noticeOnce sync.Map

// Notice prints one line that a user sees without -v: why a target was
// skipped and how to enable it. go test keeps a passing package's output to
// itself, so the line goes to the standard error of the go command that runs
// the test binary (its parent), falling back to the binary's own standard
// error where that cannot be opened (not Linux, go test -exec). The same text
// is printed once per test binary however often it is noticed.
func Notice(format string, args ...any) {
	line := NoticePrefix + strings.TrimRight(fmt.Sprintf(format, args...), "\n") + "\n"
	if _, dup := noticeOnce.LoadOrStore(line, true); dup {
		return
	}
	if w := parentStderr(); w != nil {
		_, err := w.WriteString(line)
		_ = w.Close() // written or not, the fallback below decides
		if err == nil {
			return
		}
	}
	fmt.Fprint(os.Stderr, line)
}

// parentStderr opens the standard error of the parent process when that is
// the go command, or returns nil.
func parentStderr() *os.File {
	ppid := strconv.Itoa(os.Getppid())
	comm, err := os.ReadFile("/proc/" + ppid + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return nil
	}
	f, err := os.OpenFile("/proc/"+ppid+"/fd/2", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}
