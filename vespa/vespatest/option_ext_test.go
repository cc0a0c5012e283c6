package vespatest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

func TestStart_emptyOptionValues(t *testing.T) {
	for _, c := range []struct {
		opt  vespatest.Option
		want string
	}{
		{vespatest.WithApplicationDir(""), "vespatest: WithApplicationDir: empty directory"},
		{vespatest.WithConfigServerAddr(""), "vespatest: WithConfigServerAddr: empty address"},
		{vespatest.WithContentCluster(""), "vespatest: WithContentCluster: empty name"},
		{vespatest.WithToken(""), "vespatest: WithToken: empty token"},
		{vespatest.WithHealth("sideways"), `vespatest: WithHealth: unknown status code "sideways"`},
	} {
		s, err := vespatest.Start(c.opt)
		if err == nil {
			s.Close()
			t.Errorf("%s accepted", c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("error %q, want %q", err, c.want)
		}
	}
}

func TestStart_optionsApply(t *testing.T) {
	s, err := vespatest.Start(vespatest.WithContentCluster("music"), vespatest.WithToken("secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	status, body, _ := get(t, s, "/document/v1/ns/music/docid/1?cluster=content") // s.Client() sends the token
	if status != http.StatusBadRequest || !strings.Contains(string(body), "only 'music'") {
		t.Errorf("cluster: %d %s, want 400 naming the cluster music", status, body)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+"/document/v1/ns/music/docid/1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("without the token: %d, want 403", resp.StatusCode)
	}
}
