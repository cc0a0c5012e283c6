// Package integration is govespa's end-to-end suite: one set of test bodies
// that deploys testdata/app and exercises the SDK (sync operations, the
// feeder, queries, visits, mass deletes and the feed-file reader) against
// "a Vespa", described by the Target interface in target_test.go.
//
// The suite runs against every target that is available:
//
//   - the in-process emulator (package vespatest), always, in go test ./...;
//   - the JDisc harness (package integration/jdisc): Vespa's own container
//     code for document/v1, visiting and /search/ over an in-memory store,
//     when java and mvn are on PATH (GOVESPA_JDISC=off skips it, =require
//     fails without them); it runs testdata/app from the start, so the
//     deploy step only waits for it;
//   - the same harness in a container (jdisc-container), and a
//     vespaengine/vespa container (container), both started through the
//     public vespacontainer module (testcontainers-go) where a Docker daemon
//     answers (GOVESPA_CONTAINER=off skips them, =require fails without
//     one): the harness image is built here on the local base image of
//     .ci/jre-image; Vespa's image is used only when it is present locally
//     (GOVESPA_VESPA_CONTAINER=pull lets the test pull it);
//   - any running Vespa named by VESPA_ENDPOINT (its container, port 8080)
//     and VESPA_CONFIG_SERVER (its config server, port 19071), with the
//     optional VESPA_TOKEN, VESPA_CERT_FILE and VESPA_KEY_FILE,
//     VESPA_CA_FILE and VESPA_CLUSTER. The suite deploys testdata/app to that
//     config server, replacing the application it runs.
//
// A run feeds 10,000 songs (1,000 under -short; the flag
// -suite.documents=N sets any number). When a target fails, its logs
// (vespa.log and the container's output for the container) go to the test
// log and to a file in the test's artifact directory, kept with
// go test -artifacts; GOVESPA_KEEP_CONTAINER=1 leaves the container running.
//
// The package holds no API: everything is in its tests.
package integration
