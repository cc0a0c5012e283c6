package cloud_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/cloud"
)

// TestDataPlaneFromEnvironment_TrustAllParsed: the value of
// VESPA_CLI_DATA_PLANE_TRUST_ALL is read as a boolean: false, 0 and no keep
// TLS verification on (a put to a server with a certificate nobody signed
// fails), true, 1 and yes turn it off; another value is an error. Before,
// any value (even "false") turned verification off.
func TestDataPlaneFromEnvironment_TrustAllParsed(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a"}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		value  string
		verify bool
	}{{"false", true}, {"0", true}, {"no", true}, {"FALSE", true}, {"true", false}, {"1", false}, {"yes", false}} {
		cliEnv(t)
		t.Setenv(cloud.EnvDataPlaneToken, "tok")
		t.Setenv(cloud.EnvDataPlaneTrustAll, tc.value)
		o, err := cloud.DataPlaneFromEnvironment(testApp)
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		c, err := vespa.NewClient(srv.URL, o.Options...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Put(context.Background(), vespa.MustParseDocumentID("id:ns:music::a"), map[string]any{"n": 1}, vespa.OperationOptions{})
		_ = c.Close()
		if verified := err != nil; verified != tc.verify {
			t.Errorf("TRUST_ALL=%q: put error %v; want verification %v", tc.value, err, tc.verify)
		}
	}
	cliEnv(t)
	t.Setenv(cloud.EnvDataPlaneToken, "tok")
	t.Setenv(cloud.EnvDataPlaneTrustAll, "maybe")
	if _, err := cloud.DataPlaneFromEnvironment(testApp); err == nil {
		t.Error(`TRUST_ALL="maybe": no error`)
	}
}
