package cloud_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
)

// cliEnv gives the test a fresh HOME and VESPA_CLI_HOME, with every variable
// of Vespa's CLI unset, and returns the CLI home.
func cliEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{cloud.EnvAPIKey, cloud.EnvAPIKeyFile, cloud.EnvCloudSystem, cloud.EnvDataPlaneToken,
		cloud.EnvDataPlaneCert, cloud.EnvDataPlaneCertFile, cloud.EnvDataPlaneKey, cloud.EnvDataPlaneKeyFile,
		cloud.EnvDataPlaneCACert, cloud.EnvDataPlaneCACertFile, cloud.EnvDataPlaneTrustAll} {
		t.Setenv(v, "")
		if err := os.Unsetenv(v); err != nil { // set then unset: t.Setenv restores it afterwards
			t.Fatal(err)
		}
	}
	cliHome := filepath.Join(home, "cli-home")
	t.Setenv(cloud.EnvCLIHome, cliHome)
	return cliHome
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// signedBy deploys through an emulated controller that accepts only key
// and reports whether the client's request was accepted.
func signedBy(t *testing.T, key []byte, opts ...cloud.Option) error {
	t.Helper()
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key))
	c, err := cloud.NewClient(testApp, append([]cloud.Option{cloud.WithEndpoint(srv.URL())}, opts...)...)
	if err != nil {
		return err
	}
	_, err = c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{})
	if errors.Is(err, cloud.ErrNotFound) {
		return nil // signed and accepted: there is just no deployment
	}
	return err
}

func TestFromEnvironment_Precedence(t *testing.T) {
	envKey, fileKey, homeKey := newKey(t), newKey(t), newKey(t)

	// ciKeyFile writes fileKey to a file outside the CLI's home and points
	// VESPA_CLI_API_KEY_FILE at it.
	ciKeyFile := func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "ci.pem")
		writeFile(t, f, fileKey)
		t.Setenv(cloud.EnvAPIKeyFile, f)
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home string)
		want  []byte // the key that must sign
	}{
		{"the tenant's key file in VESPA_CLI_HOME", func(t *testing.T, home string) {
			writeFile(t, filepath.Join(home, "scoober.api-key.pem"), homeKey)
		}, homeKey},
		{"~/.vespa when VESPA_CLI_HOME is unset", func(t *testing.T, _ string) {
			if err := os.Unsetenv(cloud.EnvCLIHome); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(os.Getenv("HOME"), ".vespa", "scoober.api-key.pem"), homeKey)
		}, homeKey},
		{"VESPA_CLI_API_KEY_FILE before the home file", func(t *testing.T, home string) {
			writeFile(t, filepath.Join(home, "scoober.api-key.pem"), homeKey)
			ciKeyFile(t)
		}, fileKey},
		{"VESPA_CLI_API_KEY before everything", func(t *testing.T, home string) {
			writeFile(t, filepath.Join(home, "scoober.api-key.pem"), homeKey)
			ciKeyFile(t)
			t.Setenv(cloud.EnvAPIKey, string(envKey))
		}, envKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t, cliEnv(t))
			if err := signedBy(t, tc.want, cloud.FromEnvironment()); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("VESPA_CLI_API_KEY set but empty is an error, as with the CLI", func(t *testing.T) {
		home := cliEnv(t)
		writeFile(t, filepath.Join(home, "scoober.api-key.pem"), homeKey)
		t.Setenv(cloud.EnvAPIKey, "")
		_, err := cloud.NewClient(testApp, cloud.FromEnvironment())
		if !errors.Is(err, cloud.ErrNoCredentials) || !strings.Contains(err.Error(), cloud.EnvAPIKey) {
			t.Errorf("NewClient = %v, want ErrNoCredentials naming %s", err, cloud.EnvAPIKey)
		}
	})
	t.Run("a missing key file names the places looked", func(t *testing.T) {
		home := cliEnv(t)
		_, err := cloud.NewClient(testApp, cloud.FromEnvironment())
		want := filepath.Join(home, "scoober.api-key.pem")
		if !errors.Is(err, cloud.ErrNoCredentials) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), cloud.EnvAPIKeyFile) {
			t.Errorf("NewClient = %v, want ErrNoCredentials naming %s", err, want)
		}
		writeFile(t, filepath.Join(home, "auth.json"), []byte(`{}`))
		if _, err := cloud.NewClient(testApp, cloud.FromEnvironment()); !strings.Contains(err.Error(), "vespa auth login") {
			t.Errorf("with auth.json: %v, want a hint about `vespa auth login`", err)
		}
	})
	t.Run("a missing VESPA_CLI_API_KEY_FILE is an error, not a fall-back", func(t *testing.T) {
		home := cliEnv(t)
		writeFile(t, filepath.Join(home, "scoober.api-key.pem"), homeKey)
		t.Setenv(cloud.EnvAPIKeyFile, filepath.Join(home, "nope.pem"))
		if _, err := cloud.NewClient(testApp, cloud.FromEnvironment()); err == nil || !strings.Contains(err.Error(), "nope.pem") {
			t.Errorf("NewClient = %v, want the missing file named", err)
		}
	})
	t.Run("key material never shows in errors", func(t *testing.T) {
		cliEnv(t)
		t.Setenv(cloud.EnvAPIKey, string(homeKey[:len(homeKey)/2]))
		_, err := cloud.NewClient(testApp, cloud.FromEnvironment())
		if err == nil || strings.Contains(err.Error(), string(homeKey[40:60])) {
			t.Errorf("NewClient = %v", err)
		}
	})
	t.Run("FromEnvironment counts as the one authentication", func(t *testing.T) {
		cliEnv(t)
		t.Setenv(cloud.EnvAPIKey, string(envKey))
		if _, err := cloud.NewClient(testApp, cloud.FromEnvironment(), cloud.WithAccessToken("x")); err == nil {
			t.Error("NewClient accepted FromEnvironment and WithAccessToken")
		}
	})
}

func TestFromEnvironment_CloudSystem(t *testing.T) {
	cliEnv(t)
	t.Setenv(cloud.EnvAPIKey, string(newKey(t)))
	for system, want := range map[string]string{
		"":         cloud.DefaultEndpoint,
		"public":   cloud.DefaultEndpoint,
		"publiccd": "https://api-ctl.cd.vespa-cloud.com:4443",
		"main":     "https://api.vespa.ouryahoo.com:4443",
		"cd":       "https://api-cd.vespa.ouryahoo.com:4443",
	} {
		t.Setenv(cloud.EnvCloudSystem, system)
		c, err := cloud.NewClient(testApp, cloud.FromEnvironment())
		if err != nil || c.URL() != want {
			t.Errorf("%s=%q: URL %v, %v; want %s", cloud.EnvCloudSystem, system, c.URL(), err, want)
		}
		// WithEndpoint wins, before or after.
		for _, opts := range [][]cloud.Option{
			{cloud.WithEndpoint("http://127.0.0.1:1"), cloud.FromEnvironment()},
			{cloud.FromEnvironment(), cloud.WithEndpoint("http://127.0.0.1:1")},
		} {
			if c, err := cloud.NewClient(testApp, opts...); err != nil || c.URL() != "http://127.0.0.1:1" {
				t.Errorf("%s=%q with WithEndpoint: %v, %v", cloud.EnvCloudSystem, system, c, err)
			}
		}
	}
	t.Setenv(cloud.EnvCloudSystem, "mars")
	if _, err := cloud.NewClient(testApp, cloud.FromEnvironment()); err == nil || !strings.Contains(err.Error(), "mars") {
		t.Errorf("an unknown system: %v", err)
	}
}

func TestDataPlaneFromEnvironment(t *testing.T) {
	later := time.Now().Add(time.Hour)
	t.Run("the token wins", func(t *testing.T) {
		home := cliEnv(t)
		kp, _ := cloud.GenerateKeyPair()
		if _, _, err := kp.Save(filepath.Join(home, testApp.String()), false); err != nil {
			t.Fatal(err)
		}
		t.Setenv(cloud.EnvDataPlaneToken, "vespa_cloud_secret")
		o, err := cloud.DataPlaneFromEnvironment(testApp)
		if err != nil || o.Token != "vespa_cloud_secret" || o.KeyPair != nil {
			t.Errorf("options %v, %v; want the token", o, err)
		}
	})
	t.Run("the files vespa auth cert writes", func(t *testing.T) {
		home := cliEnv(t)
		kp, err := cloud.GenerateKeyPair()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := kp.Save(filepath.Join(home, "scoober.albums.default"), false); err != nil {
			t.Fatal(err)
		}
		o, err := cloud.DataPlaneFromEnvironment(testApp)
		if err != nil || o.Token != "" || o.KeyPair == nil || string(o.KeyPair.CertificatePEM) != string(kp.CertificatePEM) {
			t.Errorf("options %v, %v; want the saved key pair", o, err)
		}
	})
	t.Run("VESPA_CLI_DATA_PLANE_CERT and _KEY before the files", func(t *testing.T) {
		home := cliEnv(t)
		kp, _ := cloud.GenerateKeyPair()
		if _, _, err := kp.Save(filepath.Join(home, testApp.String()), false); err != nil {
			t.Fatal(err)
		}
		cert, key := testutil.SelfSignedPEM(t, later)
		t.Setenv(cloud.EnvDataPlaneCert, string(cert))
		t.Setenv(cloud.EnvDataPlaneKey, string(key))
		o, err := cloud.DataPlaneFromEnvironment(testApp)
		if err != nil || o.KeyPair == nil || string(o.KeyPair.CertificatePEM) != string(cert) || string(o.KeyPair.PrivateKeyPEM) != string(key) {
			t.Errorf("options %v, %v; want the environment's pair", o, err)
		}
	})
	t.Run("VESPA_CLI_DATA_PLANE_CERT_FILE and _KEY_FILE", func(t *testing.T) {
		cliEnv(t)
		cert, key := testutil.SelfSignedPEM(t, later)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "c.pem"), cert)
		writeFile(t, filepath.Join(dir, "k.pem"), key)
		t.Setenv(cloud.EnvDataPlaneCertFile, filepath.Join(dir, "c.pem"))
		t.Setenv(cloud.EnvDataPlaneKeyFile, filepath.Join(dir, "k.pem"))
		t.Setenv(cloud.EnvDataPlaneCACertFile, filepath.Join(dir, "c.pem"))
		o, err := cloud.DataPlaneFromEnvironment(testApp)
		if err != nil || o.KeyPair == nil || string(o.KeyPair.CertificatePEM) != string(cert) || len(o.Options) != 1 {
			t.Errorf("options %v, %v; want the files' pair and a CA option", o, err)
		}
	})
	t.Run("an expired certificate is an error, as with the CLI", func(t *testing.T) {
		cliEnv(t)
		cert, key := testutil.SelfSignedPEM(t, time.Now().Add(-time.Hour))
		t.Setenv(cloud.EnvDataPlaneCert, string(cert))
		t.Setenv(cloud.EnvDataPlaneKey, string(key))
		if _, err := cloud.DataPlaneFromEnvironment(testApp); err == nil || !strings.Contains(err.Error(), "expired") ||
			!strings.Contains(err.Error(), cloud.EnvDataPlaneCert) {
			t.Errorf("DataPlaneFromEnvironment = %v, want an expiry error naming %s", err, cloud.EnvDataPlaneCert)
		}
	})
	t.Run("nothing found names the places looked", func(t *testing.T) {
		home := cliEnv(t)
		_, err := cloud.DataPlaneFromEnvironment(testApp)
		if !errors.Is(err, cloud.ErrNoCredentials) || !strings.Contains(err.Error(), filepath.Join(home, "scoober.albums.default", "data-plane-public-cert.pem")) {
			t.Errorf("DataPlaneFromEnvironment = %v, want ErrNoCredentials naming the default files", err)
		}
	})
}
