package cloud_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/vespatest"
)

// This example deploys to an emulated Vespa Cloud and follows the run's log.
func ExampleClient_FollowRun() {
	key, err := cloud.GenerateAPIKey() // normally read with WithAPIKeyFile
	if err != nil {
		log.Fatal(err)
	}
	srv := vespatest.NewCloudServer(
		vespatest.CloudWithAPIKey(key),                   // the key registered with the tenant
		vespatest.CloudWithLogInterval(time.Millisecond)) // a fast run
	defer srv.Close()

	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: "scoober", Application: "albums"},
		cloud.WithEndpoint(srv.URL()),              // the emulator instead of Vespa Cloud
		cloud.WithAPIKey(key),                      // sign every request
		cloud.WithPollInterval(5*time.Millisecond)) // poll the run often
	if err != nil {
		log.Fatal(err)
	}
	pkg, err := cloud.NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services version='1.0'/>")}})
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

// This example lists what an application package zip holds: version-control
// and editor files are left out.
func ExamplePackage_Files() {
	pkg, err := cloud.NewPackageFS(fstest.MapFS{
		"services.xml":      {Data: []byte("<services/>")},
		"schemas/music.sd":  {Data: []byte("schema music {}")},
		"schemas/music.sd~": {Data: []byte("backup")},
		".git/HEAD":         {Data: []byte("ref: refs/heads/main")},
		".DS_Store":         {Data: []byte{0}},
	})
	if err != nil {
		log.Fatal(err)
	}
	files, err := pkg.Files()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(files)
	// Output:
	// [schemas/music.sd services.xml]
}

// This example shows the error of a package without services.xml.
func ExampleNewPackageFS_missingServicesXML() {
	_, err := cloud.NewPackageFS(fstest.MapFS{"schemas/music.sd": {}})
	fmt.Println(err)
	// Output:
	// cloud: application package has no services.xml at its root (fs)
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

// This example deploys an application package to a self-hosted config
// server (here vespatest's) and waits until the new config is in use and
// the container is up.
func ExampleConfigServer_DeployAndWait() {
	srv := vespatest.NewServer() // a container with a config server
	defer srv.Close()

	cs, err := cloud.NewConfigServer(srv.ConfigServerURL(), // normally http://localhost:19071
		cloud.WithPollInterval(10*time.Millisecond)) // poll often: the emulator is fast
	if err != nil {
		log.Fatal(err)
	}
	pkg, err := cloud.NewPackage("../../integration/testdata/app")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := cs.DeployAndWait(ctx, pkg, cloud.ConfigDeployParams{
		ContainerURLs: []string{srv.URL()}, // the URL this process reaches (with Docker: the mapped port)
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Message)
	fmt.Println("activated:", s.Activated)
	// Output:
	// Session 2 for tenant 'default' prepared and activated.
	// activated: true
}
