// Package vespacontainer starts Vespa in a container for tests, in the style
// of testcontainers-go's own modules (postgres.Run, redis.Run): [Run] starts
// an image (by default [DefaultImage], Vespa's own vespaengine/vespa),
// deploys an application package through its config server, waits until
// /document/v1 and /search/ answer, and returns a [Container] with the
// endpoints and a [*vespa.Client] ready for them. Terminate it when done
// (testcontainers.CleanupContainer does it in a test's cleanup):
//
//	ctr, err := vespacontainer.Run(ctx, vespacontainer.DefaultImage,
//		vespacontainer.WithApplication("testdata/app"))
//	testcontainers.CleanupContainer(t, ctr)
//	if err != nil {
//		t.Fatal(err)
//	}
//	client, err := ctr.Client()
//
// It is what a Go service's own tests use against a real Vespa where an image
// registry is reachable (the image is about 1.5 GB, and Vespa asks for 4 GB of
// memory; the first start takes a minute or two). Options of this package
// ([WithApplication], [WithMemory], [WithStartupTimeout], [WithLogsOnFailure],
// [WithoutPull], [WithoutConfigServer]) and testcontainers-go's own
// (testcontainers.WithEnv, WithHostConfigModifier, ...) go in the same list.
//
// # Machines without a registry, or inside a container
//
// [WithoutPull] refuses an image the daemon does not have, with
// [ErrImageNotPresent], instead of asking a registry: a pull on a machine
// with no route out only waits for name lookups. On a machine whose Docker
// daemon runs beside a process that itself looks like a container (a file
// /.dockerenv), testcontainers-go connects to the default gateway rather than
// to loopback; set TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 there, and
// TESTCONTAINERS_RYUK_DISABLED=true where the reaper image cannot be pulled,
// before anything talks to the daemon.
//
// # Images that serve from the start
//
// An image that serves its application as soon as it starts and has no
// config server (an emulator, a test harness) is started with
// [WithoutConfigServer]: nothing is deployed, and Run waits for the
// container API on [ContainerPort] only.
//
// The package lives in its own module, github.com/govespa/govespa/vespacontainer,
// so that an application importing only the SDK's packages never sees
// testcontainers-go or Docker's modules in its module graph.
package vespacontainer
