package cloud_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestClient_DataPlaneClient goes from a deployment to a working data-plane
// client: the emulated control plane reports a vespatest container as the
// deployment's token endpoint.
func TestClient_DataPlaneClient(t *testing.T) {
	container := vespatest.NewTestServer(t, vespatest.WithToken("vespa_cloud_secret"))
	key := newKey(t)
	_, c := newCloud(t, key, cloudtest.WithEndpointURLs("https://mtls.invalid/", container.URL()+"/"))
	ctx := t.Context()
	if _, err := c.Deploy(ctx, devZone, certPackage(t), cloud.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	vc, err := c.DataPlaneClient(ctx, devZone, cloud.DataPlaneOptions{Token: "vespa_cloud_secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	if vc.Endpoint().String() != container.URL() {
		t.Errorf("endpoint %s, want %s", vc.Endpoint(), container.URL())
	}
	id := vespa.MustParseDocumentID("id:music:music::a")
	if _, err := vc.Put(ctx, id, map[string]any{"title": "A"}, vespa.OperationOptions{}); err != nil {
		t.Fatalf("Put through the token endpoint: %v", err)
	}
	doc, ok := container.Document(id.String())
	if !ok || !json.Valid(doc) || !strings.Contains(string(doc), `"A"`) {
		t.Errorf("document %s, %v", doc, ok)
	}

	// mTLS with a key pair in memory picks the mTLS endpoint.
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	vm, err := c.DataPlaneClient(ctx, devZone, cloud.DataPlaneOptions{KeyPair: kp})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if vm.Endpoint().Host != "mtls.invalid" {
		t.Errorf("mTLS endpoint %s", vm.Endpoint())
	}
	if _, err := c.DataPlaneClient(ctx, devZone, cloud.DataPlaneOptions{Cluster: "nope", Token: "x"}); err == nil {
		t.Error("DataPlaneClient found an endpoint for an unknown cluster")
	}
}

func TestKeyPair_SaveWhereVespaCLILooks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("VESPA_CLI_HOME", home)
	dir, err := cloud.CredentialsDir(testApp)
	if err != nil || dir != home+"/scoober.albums.default" {
		t.Fatalf("CredentialsDir = %q, %v", dir, err)
	}
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := kp.Save(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(certFile, "/data-plane-public-cert.pem") || !strings.HasSuffix(keyFile, "/data-plane-private-key.pem") {
		t.Errorf("files %s %s", certFile, keyFile)
	}
	if _, _, err := kp.Save(dir, false); err == nil {
		t.Error("Save overwrote existing credentials")
	}
	if _, _, err := kp.Save(dir, true); err != nil {
		t.Errorf("Save with overwrite: %v", err)
	}
	if strings.Contains(kp.String(), "PRIVATE") {
		t.Error("KeyPair.String shows the key")
	}
	// The default data-plane options load these files.
	_, c := newCloud(t, newKey(t))
	if _, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	vc, err := c.DataPlaneClient(t.Context(), devZone, cloud.DataPlaneOptions{})
	if err != nil {
		t.Fatalf("DataPlaneClient with the saved key pair: %v", err)
	}
	vc.Close()
}
