package deploy_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// This example lists what an application package zip holds: version-control
// and editor files are left out.
func ExamplePackage_Files() {
	pkg, err := deploy.NewPackageFS(fstest.MapFS{
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
	_, err := deploy.NewPackageFS(fstest.MapFS{"schemas/music.sd": {}})
	fmt.Println(err)
	// Output:
	// deploy: application package has no services.xml at its root (fs)
}

// This example deploys an application package to a self-hosted config
// server (here vespatest's) and waits until the new config is in use and
// the container is up.
func ExampleConfigServer_DeployAndWait() {
	srv := vespatest.NewServer() // a container with a config server
	defer srv.Close()

	cs, err := deploy.NewConfigServer(srv.ConfigServerURL(), // normally http://localhost:19071
		deploy.WithPollInterval(10*time.Millisecond)) // poll often: the emulator is fast
	if err != nil {
		log.Fatal(err)
	}
	pkg, err := deploy.NewPackage("../../integration/testdata/app")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := cs.DeployAndWait(ctx, pkg, deploy.Params{
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
