package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
)

// This example authenticates as Vespa's CLI does in a CI job: the API key
// comes from $VESPA_CLI_API_KEY, else the file $VESPA_CLI_API_KEY_FILE
// names, else $VESPA_CLI_HOME/<tenant>.api-key.pem (~/.vespa by default).
// Here the key is in a temporary CLI home; a real job sets one of the
// variables from its secrets.
func ExampleFromEnvironment() {
	key, err := cloud.GenerateAPIKey() // what `vespa auth api-key` makes
	if err != nil {
		log.Fatal(err)
	}
	srv := cloudtest.NewServer(cloudtest.WithAPIKey(key)) // an emulated Vespa Cloud that knows the key
	defer srv.Close()
	home, err := os.MkdirTemp("", "vespa-cli-home")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(home) }()
	if err := os.WriteFile(filepath.Join(home, "scoober.api-key.pem"), key, 0o600); err != nil {
		log.Fatal(err)
	}
	defer setenv("VESPA_CLI_HOME", home)() // normally ~/.vespa
	defer unsetenv("VESPA_CLI_API_KEY")()  // unset here, so that the home file is used
	defer unsetenv("VESPA_CLI_API_KEY_FILE")()

	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: "scoober", Application: "albums"},
		cloud.FromEnvironment(),       // the key where Vespa's CLI finds it
		cloud.WithEndpoint(srv.URL())) // the emulator instead of Vespa Cloud
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Endpoints(ctx, cloud.DefaultDevZone, cloud.EndpointFilter{})
	fmt.Println("signed and accepted, no deployment yet:", errors.Is(err, cloud.ErrNotFound))
	// Output:
	// signed and accepted, no deployment yet: true
}

// setenv sets an environment variable and returns what restores it.
func setenv(name, value string) func() {
	old, had := os.LookupEnv(name)
	must(os.Setenv(name, value))
	return func() {
		if had {
			must(os.Setenv(name, old))
		} else {
			must(os.Unsetenv(name))
		}
	}
}

// unsetenv unsets an environment variable and returns what restores it.
func unsetenv(name string) func() {
	old, had := os.LookupEnv(name)
	must(os.Unsetenv(name))
	return func() {
		if had {
			must(os.Setenv(name, old))
		}
	}
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
