package cloud_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/deploy"
)

// This example deploys to an emulated Vespa Cloud and follows the run's log.
func ExampleClient_FollowRun() {
	key, err := cloud.GenerateAPIKey() // normally read with WithAPIKeyFile
	if err != nil {
		log.Fatal(err)
	}
	srv := cloudtest.NewServer(
		cloudtest.WithAPIKey(key),                   // the key registered with the tenant
		cloudtest.WithLogInterval(time.Millisecond)) // a fast run
	defer srv.Close()

	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: "scoober", Application: "albums"},
		cloud.WithEndpoint(srv.URL()),              // the emulator instead of Vespa Cloud
		cloud.WithAPIKey(key),                      // sign every request
		cloud.WithPollInterval(5*time.Millisecond)) // poll the run often
	if err != nil {
		log.Fatal(err)
	}
	pkg, err := deploy.NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services version='1.0'/>")}})
	if err != nil {
		log.Fatal(err)
	}
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		log.Fatal(err)
	}
	if pkg, err = pkg.WithClientCertificate(kp.CertificatePEM); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.Deploy(ctx, cloud.DefaultDevZone, pkg, cloud.DeployOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.FollowRun(ctx, run, func(e cloud.LogEntry) {
		if e.Step == "deployReal" {
			fmt.Printf("%-7s %s\n", e.Type, e.Message)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("run", run.ID, res.Status)
	// Output:
	// info    Deploying platform version 8.0.0 and application dev build 1 for dev-aws-us-east-1c of default ...
	// info    Deployment successful.
	// run 1 success
}

// This example parses a zone and names its deployment job.
func ExampleParseZone() {
	z, err := cloud.ParseZone("perf.aws-us-east-1c")
	if err != nil {
		log.Fatal(err)
	}
	prod := cloud.Zone{Environment: cloud.EnvProd, Region: "aws-us-east-1c"}
	fmt.Println(z.Job(), prod.Job())
	// Output:
	// perf-aws-us-east-1c production-aws-us-east-1c
}
