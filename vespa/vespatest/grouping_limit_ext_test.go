package vespatest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

// Vespa's bound on grouping sizes, grouping.globalMaxGroups (container-search
// GroupingExecutor's DEFAULT_GLOBAL_MAX_GROUPS, 10000, checked by
// RequestBuilder.validateGlobalMax), is set in the default query profile:
// GroupingQueryParser.validate refuses it as a request parameter.
func TestServer_groupingBoundFromQueryProfile(t *testing.T) {
	const profile = `<query-profile id="default"><field name="grouping.globalMaxGroups">-1</field></query-profile>`
	search := "/search/?hits=0&yql=" + url.QueryEscape("select * from music where true | all(group(year) max(inf) each(output(count())))")
	off := testutil.AppDir(t, map[string]string{"services.xml": servicesXML, "schemas/music.sd": musicSD, "search/query-profiles/default.xml": profile})
	on := testutil.AppDir(t, map[string]string{"services.xml": servicesXML, "schemas/music.sd": musicSD})
	for _, c := range []struct {
		name string
		opts []vespatest.Option
		want int
	}{
		{"package without a profile", []vespatest.Option{vespatest.WithApplicationDir(on)}, http.StatusBadRequest},
		{"package profile -1", []vespatest.Option{vespatest.WithApplicationDir(off)}, http.StatusOK},
		{"WithQueryProfile -1", []vespatest.Option{vespatest.WithQueryProfile(map[string]string{"grouping.globalMaxGroups": "-1"})}, http.StatusOK},
		{"WithQueryProfile 5", []vespatest.Option{vespatest.WithQueryProfile(map[string]string{"grouping.globalMaxGroups": "5"})}, http.StatusBadRequest},
		{"lenient, no profile", nil, http.StatusBadRequest},
	} {
		s := vespatest.NewTestServer(t, c.opts...)
		if st, body := do(t, s.Client(), "GET", s.URL()+search, ""); st != c.want {
			t.Errorf("%s: max(inf): %d %s, want %d", c.name, st, body, c.want)
		}
	}
	s := vespatest.NewTestServer(t, vespatest.WithApplicationDir(off))
	st, body := do(t, s.Client(), "GET", s.URL()+search+"&grouping.globalMaxGroups=-1", "")
	if st != http.StatusBadRequest || !strings.Contains(body, `"code":17`) || !strings.Contains(body, "grouping.globalMaxGroups must be specified in a query profile.") {
		t.Errorf("as a request parameter: %d %s", st, body)
	}
	deploy(t, s, "default") // a package without a profile replaces the one with
	if st, body := do(t, s.Client(), "GET", s.URL()+search, ""); st != http.StatusBadRequest {
		t.Errorf("after deploying a package without a profile: %d %s", st, body)
	}
}
