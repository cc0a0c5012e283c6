package deploy_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
)

// TestConfigServer_UserAgent: the control plane names itself as the data
// plane does, so one access log shows one client.
func TestConfigServer_UserAgent(t *testing.T) {
	uas := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uas <- r.Header.Get("User-Agent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"services":[],"currentGeneration":1,"wantedGeneration":1,"converged":true}`))
	}))
	defer srv.Close()
	for _, tc := range []struct{ opt, want string }{{"", "govespa/" + vespa.Version}, {"me/2", "me/2"}} {
		var opts []deploy.Option
		if tc.opt != "" {
			opts = append(opts, deploy.WithUserAgent(tc.opt))
		}
		cs, err := deploy.NewConfigServer(srv.URL, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Convergence(t.Context(), "app", "default"); err != nil {
			t.Fatal(err)
		}
		if got := <-uas; got != tc.want {
			t.Errorf("WithUserAgent(%q): sent User-Agent %q, want %q", tc.opt, got, tc.want)
		}
	}
}
