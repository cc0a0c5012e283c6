package integration

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/retries"
)

// appDir is the application package the suite deploys.
const appDir = "testdata/app"

// The number of songs the suite feeds. A run feeds suiteDocuments, also
// under the race detector, unless the -suite.documents flag says otherwise or
// -short is on: then it feeds reducedDocuments. Measured on an idle 2-core
// machine, the emulator target takes about 30 s with 10,000 songs under
// -race (go test -race -run 'TestSuite$' ./integration).
const (
	suiteDocuments   = 10_000
	reducedDocuments = 1_000
)

var suiteDocumentsFlag = flag.Int("suite.documents", 0,
	"number of songs the integration suite feeds (0: 10,000; 1,000 with -short)")

// suiteDocumentCount returns the number of songs this run feeds.
func suiteDocumentCount() int {
	return documentCount(*suiteDocumentsFlag, suiteDocuments, reducedDocuments)
}

// documentCount is the number of documents a run feeds: flagValue when it
// is positive (a -*.documents flag), else short with -short, else full.
func documentCount(flagValue, full, short int) int {
	switch {
	case flagValue > 0:
		return flagValue
	case testing.Short():
		return short
	default:
		return full
	}
}

// suite is one run of the test bodies against one target.
type suite struct {
	tg     Target
	ctx    context.Context // bounded by tg.Timeout
	client *vespa.Client   // HTTP/2, for everything
	docs   corpus
}

// TestSuite runs the whole suite against every available target: deploy
// testdata/app and wait until it is ready, then sync operations, a feed,
// queries, a sliced visit, a removal by selection and a feed file, in that
// order (the later steps read what the feed wrote).
func TestSuite(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		runSuite(t, tg, suiteDocumentCount())
	})
}

// runSuite runs the test bodies against tg, feeding n songs.
func runSuite(t *testing.T, tg Target, n int) {
	ctx, cancel := context.WithTimeout(t.Context(), tg.Timeout())
	defer cancel()
	s := &suite{
		tg:     tg,
		ctx:    ctx,
		client: newTargetClient(t, tg, vespa.WithHTTPVersion(vespa.HTTP2)),
		docs:   newCorpus(n),
	}
	t.Logf("[%s] container %s, config server %s, namespace %s, %d songs", tg.Name(), tg.Endpoint(), tg.ConfigServer(), s.docs.ns, n)
	if !t.Run("deploy testdata/app and wait until ready", s.testDeploy) {
		t.FailNow()
	}
	t.Cleanup(s.removeEverything)
	t.Run("sync get put update remove", s.testSync)
	if !t.Run("feed the corpus", s.testFeed) {
		t.FailNow()
	}
	t.Run("query", s.testQuery)
	t.Run("visit in 4 slices", s.testVisit)
	t.Run("remove by selection", s.testRemoveWhere)
	t.Run("feed a feed file", s.testFeedFile)
}

// healthURLer is implemented by targets whose containers the config-server
// client cannot check for health itself (it sends no data-plane token):
// the URLs ConfigServer.DeployAndWait should wait for.
type healthURLer interface {
	deployHealthURLs() []string
}

// preDeployed is implemented by targets that run testdata/app from the
// start and have no config server (the JDisc harness): for them the deploy
// step only waits until the container is ready.
type preDeployed interface {
	preDeployed()
}

// testDeploy waits for the config server, deploys testdata/app through
// deploy.ConfigServer, waits for convergence and health, and then for the
// container through the data-plane client.
func (s *suite) testDeploy(t *testing.T) {
	if _, ok := s.tg.(preDeployed); ok {
		if err := s.client.WaitUntilReady(s.ctx); err != nil {
			t.Fatalf("[%s] the container did not become ready: %v", s.tg.Name(), err)
		}
		if err := s.warmUp(); err != nil {
			t.Fatalf("[%s] document/v1 or /search/ did not answer: %v", s.tg.Name(), err)
		}
		return
	}
	cs, err := deploy.NewConfigServer(s.tg.ConfigServer(), s.tg.ConfigServerOptions()...)
	if err != nil {
		t.Fatalf("[%s] deploy.NewConfigServer: %v", s.tg.Name(), err)
	}
	if err := cs.WaitForHealth(s.ctx, s.tg.ConfigServer()); err != nil {
		t.Fatalf("[%s] the config server did not come up: %v", s.tg.Name(), err)
	}
	pkg, err := deploy.NewPackage(appDir)
	if err != nil {
		t.Fatalf("deploy.NewPackage(%s): %v", appDir, err)
	}
	params := deploy.Params{ContainerURLs: []string{s.tg.Endpoint()}}
	if h, ok := s.tg.(healthURLer); ok {
		params.ContainerURLs = h.deployHealthURLs()
	}
	start := time.Now()
	sess, err := cs.DeployAndWait(s.ctx, pkg, params)
	if err != nil {
		t.Fatalf("[%s] deploy of %s: %v", s.tg.Name(), appDir, err)
	}
	if !sess.Activated || sess.ID <= 0 {
		t.Fatalf("[%s] deploy: session %+v, want an activated session with a positive id", s.tg.Name(), sess)
	}
	for _, l := range sess.Log {
		t.Logf("[%s] deploy log: %+v", s.tg.Name(), l)
	}
	if err := s.client.WaitUntilReady(s.ctx); err != nil {
		t.Fatalf("[%s] the container did not become ready: %v", s.tg.Name(), err)
	}
	if err := s.warmUp(); err != nil {
		t.Fatalf("[%s] document/v1 or /search/ did not answer: %v", s.tg.Name(), err)
	}
	t.Logf("[%s] session %d active and ready after %v", s.tg.Name(), sess.ID, time.Since(start).Round(time.Millisecond))
}

// warmUpPolicy retries the first requests after a deploy while they fail
// with 503 or 504 or cannot connect: a real Vespa's container says "up"
// before its content node has joined, and the sync client's policy does not
// retry those statuses.
var warmUpPolicy = retries.New("integration warm-up", func(o retries.Outcome) bool {
	switch o.StatusCode() {
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return retries.RetryIfConnectionError(o)
}, retries.WaitExponential(250*time.Millisecond, 250*time.Millisecond, 5*time.Second), 100)

// warmUp waits until a get of a missing document answers 404 and a query
// answers without errors.
func (s *suite) warmUp() error {
	qc, err := query.New(s.client)
	if err != nil {
		return err
	}
	probe := musicID(s.syncNamespace(), "warm-up-probe")
	return warmUpPolicy.Do(s.ctx, func(ctx context.Context) error {
		if _, err := s.client.Get(ctx, probe, vespa.OperationOptions{}); !errors.Is(err, vespa.ErrNotFound) {
			if err == nil {
				return fmt.Errorf("get %s: found a document that should not exist", probe)
			}
			return err
		}
		res, err := qc.Search(ctx, &query.Request{YQL: "select * from music where true", Hits: query.NoHits})
		if err != nil {
			return err
		}
		return res.Err()
	})
}

// removeEverything removes the documents of every namespace the suite
// wrote, so that a shared Vespa is left as it was found.
func (s *suite) removeEverything() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, ns := range []string{s.docs.ns, s.syncNamespace(), s.fileNamespace()} {
		_, err := s.client.RemoveWhere(ctx, vespa.SelectionRequest{
			Namespace: ns, DocType: "music", Cluster: s.tg.Cluster(), Selection: "true",
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			// Not a failure of the suite: it only leaves documents behind.
			s.client.Logger().Warn("cleanup", "namespace", ns, "err", err)
		}
	}
}

// syncNamespace and fileNamespace keep the documents of the sync and
// feed-file tests apart from the corpus, so visits count only the corpus.
func (s *suite) syncNamespace() string { return s.docs.ns + "-sync" }
func (s *suite) fileNamespace() string { return s.docs.ns + "-file" }

// musicID returns id:<ns>:music::<key>.
func musicID(ns, key string) vespa.DocumentID {
	return vespa.DocumentID{Namespace: ns, DocType: "music", UserSpecific: key}
}
