package deploy_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/deploy"
)

// TestDeploy_ContainerPortSaysSo checks issue 30's control-plane errors: a
// deploy sent to a container's port (8080) instead of the config server's
// gets JDisc's 404 "No request handler bound to /application/v2/...": the
// error says once which layer failed (no "deploy: deploy:") and what to do.
// Before it read "deploy: deploy: 404 Not Found: No request handler ..." with
// no hint.
func TestDeploy_ContainerPortSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error-code":"NOT_FOUND","message":"No request handler bound to ` + r.URL.Path + `"}`))
	}))
	defer srv.Close()
	cs, err := deploy.NewConfigServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pkg := mustPackage(t, "../../integration/testdata/app")
	_, err = cs.Deploy(context.Background(), pkg, deploy.Params{})
	if err == nil {
		t.Fatal("a deploy answered 404 succeeded")
	}
	msg := err.Error()
	if strings.Count(msg, "deploy:") != 1 {
		t.Errorf("%q: want the prefix deploy: once", msg)
	}
	if !strings.Contains(msg, "19071") || !strings.Contains(msg, "config server") {
		t.Errorf("%q: no hint that a container answered instead of the config server", msg)
	}
}
