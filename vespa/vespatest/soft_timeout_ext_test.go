package vespatest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// A content node whose soft timeout ends matching early: Vespa's default
// (ranking.softtimeout.enable=true) answers 200 with the hits found so far
// and the coverage degraded by timeout — ProtobufSerialization.convertToCoverage
// sets DEGRADED_BY_TIMEOUT, Coverage.getFull is false with fewer documents
// than active, JsonRenderer.renderCoverage writes the degraded object before
// full (container-search and container-disc at 1f79d33dd014). With soft
// timeout off it is the hard timeout, 504 with code 12. Before, the
// emulator could only answer 504.
func TestSearch_softTimeoutFault(t *testing.T) {
	s := musicServer(t)
	for i := range 10 {
		url := fmt.Sprintf("%s/document/v1/d/music/docid/%d", s.URL(), i)
		if st, _, body := doH(t, s.Client(), "POST", url, `{"fields":{"title":"x","year":1}}`); st != 200 {
			t.Fatalf("put: %d %s", st, body)
		}
	}
	if err := s.AddFault(vespatest.FaultRule{Op: vespatest.OpSearch, Rate: 1, Times: 2, Fault: vespatest.FaultSoftTimeout(0.4)}); err != nil {
		t.Fatal(err)
	}
	q := s.URL() + "/search/?hits=20&yql=select%20*%20from%20music%20where%20true"
	st, _, body := doH(t, s.Client(), "GET", q, "")
	want := `"fields":{"totalCount":4},"coverage":{"coverage":40,"documents":4,"degraded":{"match-phase":false,"timeout":true,"adaptive-timeout":false,"anntimeout":false,"non-ideal-state":false},"full":false,"nodes":1,"results":1,"resultsFull":0}`
	if st != 200 || !strings.Contains(body, want) || strings.Count(body, `"sddocname"`) != 4 || strings.Contains(body, `"errors"`) {
		t.Errorf("soft timeout: %d %s\nwant %s", st, body, want)
	}
	st, _, body = doH(t, s.Client(), "GET", q+"&ranking.softtimeout.enable=false", "")
	if st != 504 || !strings.Contains(body, `"code":12`) {
		t.Errorf("hard timeout: %d %s", st, body)
	}
	// Without the fault: full coverage, no degraded object.
	st, _, body = doH(t, s.Client(), "GET", q, "")
	if st != 200 || !strings.Contains(body, `"coverage":{"coverage":100,"documents":10,"full":true,"nodes":1,"results":1,"resultsFull":1}`) {
		t.Errorf("no fault: %d %s", st, body)
	}
	if err := s.AddFault(vespatest.FaultRule{Op: vespatest.OpSearch, Rate: 1, Fault: vespatest.FaultSoftTimeout(1.5)}); err == nil {
		t.Errorf("AddFault accepted Covered 1.5")
	}
}

// A rule without a rate would never fire; AddFault and WithFaults refuse it
// (before, it was accepted and silently did nothing).
func TestAddFault_refusesRateZero(t *testing.T) {
	s := vespatest.NewTestServer(t)
	err := s.AddFault(vespatest.FaultRule{Op: vespatest.OpGet, Times: 1, Fault: vespatest.FaultOverload()})
	if err == nil || !strings.Contains(err.Error(), "Rate 1") {
		t.Errorf("AddFault with Rate 0: %v", err)
	}
	if _, err := vespatest.Start(vespatest.WithFaults(vespatest.FaultRule{Fault: vespatest.FaultOverload()})); err == nil {
		t.Errorf("WithFaults accepted Rate 0")
	}
	if err := s.AddFault(vespatest.FaultRule{Op: vespatest.OpGet, Rate: 1, Times: 1, Fault: vespatest.FaultOverload()}); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := doH(t, s.Client(), "GET", s.URL()+"/document/v1/d/music/docid/x", ""); st != 429 {
		t.Errorf("Rate 1: %d, want 429", st)
	}
}
