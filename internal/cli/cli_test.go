package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		ok   bool
	}{
		{"flags parse", []string{"-n", "3", "file"}, ExitOK, true},
		{"-h asks for the usage", []string{"-h"}, ExitOK, false},
		{"an unknown flag", []string{"-nope"}, ExitUsage, false},
		{"a bad value", []string{"-n", "three"}, ExitUsage, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Int("n", 0, "a number")
			if code, ok := Parse(fs, tc.args); code != tc.code || ok != tc.ok {
				t.Errorf("Parse(%q) = %d, %v; want %d, %v", tc.args, code, ok, tc.code, tc.ok)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Int("n", 0, "a `number`")
	Usage(fs, "usage: x [-n N] FILE\n\n")
	if code, ok := Parse(fs, []string{"-h"}); code != ExitOK || ok {
		t.Fatalf("-h: %d, %v", code, ok)
	}
	if want := "usage: x [-n N] FILE\n\n  -n number\n    \ta number\n"; out.String() != want {
		t.Errorf("usage %q, want %q", out.String(), want)
	}
}

func TestUsageError(t *testing.T) {
	var stderr bytes.Buffer
	if code := UsageError(&stderr, "x", flag.ErrHelp); code != ExitOK || stderr.Len() != 0 {
		t.Errorf("UsageError(ErrHelp) = %d, wrote %q; want %d, nothing", code, stderr.String(), ExitOK)
	}
	if code := UsageError(&stderr, "x", errors.New("-docs must be positive")); code != ExitUsage || stderr.String() != "x: -docs must be positive\n" {
		t.Errorf("UsageError = %d, wrote %q", code, stderr.String())
	}
}

func TestFailed(t *testing.T) {
	var stderr bytes.Buffer
	if code := Failed(&stderr, "x", errors.New("disk full")); code != ExitFailed || stderr.String() != "x: disk full\n" {
		t.Errorf("Failed = %d, wrote %q", code, stderr.String())
	}
}

func TestEndpointVar(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", DefaultEndpoint},
		{"http://vespa.example:8080", "http://vespa.example:8080"},
	} {
		t.Setenv("VESPA_ENDPOINT", tc.env)
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var got string
		EndpointVar(fs, &got)
		if err := fs.Parse(nil); err != nil || got != tc.want {
			t.Errorf("VESPA_ENDPOINT=%q: -endpoint %q, %v; want %q", tc.env, got, err, tc.want)
		}
		if err := fs.Parse([]string{"-endpoint", "http://flag:1"}); err != nil || got != "http://flag:1" {
			t.Errorf("-endpoint given: %q, %v", got, err)
		}
		if u := fs.Lookup("endpoint").Usage; !strings.Contains(u, "$VESPA_ENDPOINT") {
			t.Errorf("usage %q does not name $VESPA_ENDPOINT", u)
		}
	}
}
