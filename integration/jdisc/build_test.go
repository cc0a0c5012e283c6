package jdisc

import (
	"strings"
	"testing"
)

func TestVespaVersion_matchesPom(t *testing.T) {
	pom, err := module.ReadFile("pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	if want := "<vespa.version>" + VespaVersion + "</vespa.version>"; !strings.Contains(string(pom), want) {
		t.Errorf("pom.xml does not pin %s", want)
	}
}

func TestSourceHash_isStable(t *testing.T) {
	a, err := SourceHash()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SourceHash()
	if a != b || len(a) != 16 {
		t.Errorf("SourceHash = %q then %q, want the same 16 hex digits", a, b)
	}
}

func TestContentCluster(t *testing.T) {
	got, err := ContentCluster("../testdata/app")
	if err != nil || got != "music" {
		t.Errorf("ContentCluster(testdata/app) = %q, %v; want music", got, err)
	}
	got, err = ContentCluster(t.TempDir())
	if err != nil || got != "music" {
		t.Errorf("ContentCluster(empty dir) = %q, %v; want the default music", got, err)
	}
}

func TestTail_keepsLastLines(t *testing.T) {
	tl := &tail{max: 2}
	_, _ = tl.Write([]byte("one\ntwo\nthr"))
	_, _ = tl.Write([]byte("ee\nfour"))
	if got := string(tl.Bytes()); got != "two\nthree\nfour" {
		t.Errorf("tail = %q", got)
	}
}
