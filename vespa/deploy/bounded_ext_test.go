package deploy_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// silentServer accepts connections on loopback and never answers, as a hung
// config server or a load balancer that dropped the flow does.
func silentServer(t *testing.T) string {
	t.Helper()
	var conns []net.Conn // held open, never read nor answered
	// After the server's own cleanup has stopped accepting:
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return testutil.RawServer(t, func(c net.Conn) { conns = append(conns, c) })
}

// TestConfigServer_CallsAreBoundedByDefault checks issue 27's item 8: with
// context.Background() and no http.Client Timeout, a call to a server that
// never answers ends by the default attempt bound (shortened here) instead of
// waiting forever. Before the bound, both calls below never returned.
func TestConfigServer_CallsAreBoundedByDefault(t *testing.T) {
	defer func(call, upload time.Duration) { ctlplane.CallTimeout, ctlplane.UploadTimeout = call, upload }(ctlplane.CallTimeout, ctlplane.UploadTimeout)
	ctlplane.CallTimeout, ctlplane.UploadTimeout = 100*time.Millisecond, 200*time.Millisecond

	cs, err := deploy.NewConfigServer(silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	pkg := mustPackage(t, "../../integration/testdata/app")
	for name, call := range map[string]func() error{
		"convergence": func() error { _, err := cs.Convergence(context.Background(), "default", "default"); return err },
		"deploy":      func() error { _, err := cs.Deploy(context.Background(), pkg, deploy.Params{}); return err },
	} {
		t.Run(name, func(t *testing.T) {
			errc := make(chan error, 1)
			go func() { errc <- call() }()
			select {
			case err := <-errc:
				if err == nil {
					t.Fatal("a call to a server that never answers succeeded")
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want one matching context.DeadlineExceeded (the attempt's bound)", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the call still waits after 30 s: no default bound")
			}
		})
	}
}
