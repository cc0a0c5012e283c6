// Command quickstart is govespa's tour in one run: it feeds a generated corpus
// of songs, queries it three ways, visits it, removes part of it by selection,
// and prints a short report.
//
//	go run ./examples/quickstart
//
// Without VESPA_ENDPOINT it starts the in-process emulator (package vespatest)
// and deploys the integration suite's music application to it
// (integration/testdata/app, found by walking up to the module's go.mod). With
// VESPA_ENDPOINT it runs against that Vespa, whose application must have the
// music schema of integration/testdata/app; deploy it with
//
//	go run ./examples/deploy -config-server http://localhost:19071 integration/testdata/app
//
// VESPA_TOKEN, or VESPA_CERT_FILE and VESPA_KEY_FILE (mutual TLS), and
// VESPA_CA_FILE authenticate to it, as in the integration suite (VESPA_CERT,
// VESPA_KEY and VESPA_CA work too); VESPA_CLUSTER names its content cluster
// (default music).
// The documents live in their own namespace, removed at the start and the end.
//
// The steps: feed 10,000 documents through the asynchronous feeder (package
// feed, with a progress bar when stderr is a terminal); a query built with the
// YQL builder, one with userQuery(), and a nearestNeighbor query whose vector
// comes from a small deterministic embedder wrapped in models.Retrying
// (package query and models); a visit with 4 slices that must return every
// document exactly once (vespa.Client.Visit); a removal by selection that must
// remove exactly the selected documents (vespa.Client.RemoveWhere).
//
// The exit status is 0 when every step succeeded and every count matched, 1
// otherwise, 2 on bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/govespa/govespa/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	endpoint  string
	cluster   string
	namespace string
	app       string
	docs      int
	keep      bool
	timeout   time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cli.Usage(fs, `usage: quickstart [flags]

Feeds, queries, visits and removes a generated corpus of songs, and prints a
report. Without VESPA_ENDPOINT (or -endpoint) it runs on the in-process
emulator; with it, against that Vespa, whose application must have the music
schema of integration/testdata/app.

Environment: VESPA_ENDPOINT, VESPA_TOKEN, VESPA_CERT_FILE and VESPA_KEY_FILE
(mutual TLS), VESPA_CA_FILE, VESPA_CLUSTER. VESPA_CERT, VESPA_KEY and VESPA_CA
are read when the _FILE names are unset.

`)
	cluster := os.Getenv("VESPA_CLUSTER")
	if cluster == "" {
		cluster = "music"
	}
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv("VESPA_ENDPOINT"), "Vespa container `URL` (default $VESPA_ENDPOINT); empty: the in-process emulator")
	fs.StringVar(&o.cluster, "cluster", cluster, "content `cluster` of the music documents (default $VESPA_CLUSTER, else music)")
	fs.StringVar(&o.namespace, "namespace", "quickstart", "document `namespace` of the corpus; its music documents are removed at start and end")
	fs.StringVar(&o.app, "app", "", "application package `directory` for the emulator (default: integration/testdata/app of this module)")
	fs.IntVar(&o.docs, "docs", 10000, "number of documents to feed")
	fs.BoolVar(&o.keep, "keep", false, "keep the documents the selection did not remove")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "deadline of the whole run")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.docs < 1 {
		return o, errors.New("-docs must be at least 1")
	}
	if o.timeout <= 0 {
		return o, errors.New("-timeout must be positive")
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.UsageError(stderr, "quickstart", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	start := time.Now()
	r := &report{w: stdout}
	if err := tour(ctx, o, r, stderr); err != nil {
		r.fail("error", "%v", err)
	}
	if len(r.failed) > 0 {
		fmt.Fprintf(stdout, "%-9s %d step(s) FAILED in %v\n", "result", len(r.failed), ms(time.Since(start)))
		return cli.ExitFailed
	}
	fmt.Fprintf(stdout, "%-9s ok in %v\n", "result", ms(time.Since(start)))
	return cli.ExitOK
}

// tour runs the steps in order. A step that cannot go on returns an error;
// a step whose counts are wrong is reported failed and the tour goes on.
func tour(ctx context.Context, o options, r *report, stderr io.Writer) error {
	var (
		t   *target
		err error
	)
	if o.endpoint != "" {
		if t, err = connect(o); err != nil {
			return err
		}
		if err := t.client.WaitUntilReady(ctx); err != nil {
			t.close()
			return err
		}
		r.ok("target", "%s, cluster %s", t.name, t.cluster)
	} else {
		var how string
		if t, how, err = startEmulator(ctx, o); err != nil {
			return err
		}
		r.ok("target", "%s: %s", t.name, how)
	}
	defer t.close()

	embedder, err := newEmbedder()
	if err != nil {
		return err
	}
	genStart := time.Now()
	songs, err := corpus(ctx, o.namespace, o.docs, embedder)
	if err != nil {
		return err
	}
	r.ok("corpus", "%d songs with 384-dimension title embeddings generated in %v", len(songs), ms(time.Since(genStart)))

	q := &quickstart{r: r, t: t, ns: o.namespace, songs: songs, embedder: embedder, stderr: stderr}
	steps := []func(context.Context) error{q.clean, q.feed, q.queries, q.visitAll, q.removeOld}
	if !o.keep {
		steps = append(steps, q.removeRest)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}
