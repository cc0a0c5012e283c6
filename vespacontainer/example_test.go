package vespacontainer_test

import (
	"context"
	"os"

	"github.com/testcontainers/testcontainers-go"

	"github.com/govespa/govespa/vespacontainer"
)

// Run starts Vespa from an image, deploys the application package and hands
// back a client once /document/v1 and /search/ answer. In a test, pass
// t.Context() and t.Output(), and testcontainers.CleanupContainer(t, ctr)
// removes the container when the test ends.
func ExampleRun() {
	ctx := context.Background()
	ctr, err := vespacontainer.Run(ctx, vespacontainer.DefaultImage,
		vespacontainer.WithApplication("testdata/app"),
		vespacontainer.WithLogsOnFailure(os.Stderr))
	defer func() { _ = testcontainers.TerminateContainer(ctr) }()
	if err != nil {
		panic(err)
	}
	client, err := ctr.Client()
	if err != nil {
		panic(err)
	}
	defer client.Close()
	// ... client.Put, query.New(client), ...
}
