// Command visit dumps the documents of a Vespa corpus as a feed: one
// {"put": "<id>", "fields": {...}} per line on stdout, so that
//
//	go run ./examples/visit -namespace ns -type music > music.jsonl
//	go run ./examples/visit -endpoint http://a:8080 -namespace ns -type music | go run ./examples/feed -endpoint http://b:8080
//
// copies a corpus. It follows the library's defaults: pages of 1000
// documents (-wanted) and 8 slices fetched in parallel (-parallelism; -slices
// splits finer, -slice-ids lets several processes share one visit); a visit
// without -type covers both bucket spaces (-bucket-space narrows it). A
// summary and a resume token go to stderr; on Ctrl-C (or any failure) the
// token says where to go on from:
//
//	go run ./examples/visit -namespace ns -type music -resume v1.eyJm...
//
// -from and -to (RFC 3339 times) and -include-removes make an incremental
// export: what changed in the window, removals as {"remove": "<id>"} lines,
// so that feeding the output replays the changes.
//
// -endpoint defaults to $VESPA_ENDPOINT, else http://localhost:8080. -token,
// -cert, -key and -ca-cert authenticate as in examples/feed, and default to
// $VESPA_TOKEN, $VESPA_CERT_FILE, $VESPA_KEY_FILE and $VESPA_CA_FILE as in
// examples/quickstart.
//
// Documents are written to stdout in batches, and the resume token printed
// covers only the batches written: when stdout fails (a full disk, a closed
// pipe), resuming with it loses nothing, though the documents of the batch
// that failed may come out twice if part of it was written. On a terminal,
// stderr shows a progress line (documents, documents/s, and with streamed
// pages the percentage and the time left); elsewhere it stays quiet until the
// summary. The exit status is 0 when the visit is complete, 1 when it
// failed, 130 when it was interrupted, 2 for usage errors.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/vespa"
)

func main() {
	// A closed stdout pipe is a write error to report, with the resume
	// token, rather than a silent death by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) }, os.Interrupt, syscall.SIGTERM)
}

// timeFlag parses an RFC 3339 time into *t.
func timeFlag(t *time.Time) func(string) error {
	return func(s string) error {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return err
		}
		*t = v
		return nil
	}
}

// run parses args and visits; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("visit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var endpoint string
	var req vespa.VisitRequest
	var sliceIDs string
	var creds credflags.Credentials
	cli.EndpointVar(fs, &endpoint)
	fs.StringVar(&req.Namespace, "namespace", "", "document `namespace`")
	fs.StringVar(&req.DocType, "type", "", "document `type`; empty visits every type (needs -cluster)")
	fs.StringVar(&req.Cluster, "cluster", "", "content `cluster`; empty: the only one")
	fs.StringVar(&req.Selection, "selection", "", "document `selection`, such as 'music.year > 2000'")
	fs.StringVar(&req.FieldSet, "field-set", "", "`field set`, such as '[all]' or 'music:title,year'")
	fs.StringVar(&req.BucketSpace, "bucket-space", "", "`space` of a visit without -type: default or global (default both)")
	fs.Func("from", "visit documents written at or after this `time` (RFC 3339)", timeFlag(&req.FromTimestamp))
	fs.Func("to", "visit documents written at or before this `time` (RFC 3339)", timeFlag(&req.ToTimestamp))
	fs.BoolVar(&req.IncludeRemoves, "include-removes", false, "write removed documents as {\"remove\": id} lines")
	fs.IntVar(&req.Slices, "slices", 0, "number of `slices` to split the corpus into (default: the resume token's, else -parallelism)")
	fs.StringVar(&sliceIDs, "slice-ids", "", "comma-separated `IDs` of the slices this process visits (default all)")
	fs.IntVar(&req.Parallelism, "parallelism", 0, fmt.Sprintf("slices fetched at once (default %d)", vespa.DefaultVisitParallelism))
	fs.IntVar(&req.WantedDocumentCount, "wanted", 0, fmt.Sprintf("wanted documents per page (default %d)", vespa.DefaultWantedDocumentCount))
	fs.IntVar(&req.Concurrency, "concurrency", 0, "Vespa's visitor concurrency per page (default Vespa's)")
	fs.DurationVar(&req.Timeout, "timeout", 0, "Vespa timeout of each page request (default Vespa's, 180s)")
	fs.StringVar(&req.ResumeToken, "resume", "", "resume `token` printed by an earlier, unfinished run")
	creds.Register(fs)
	cli.Usage(fs, "usage: visit [-endpoint URL] -namespace NS -type T [-cluster C] [-selection S] [-field-set F]\n"+
		"             [-from TIME] [-to TIME] [-include-removes] [-bucket-space S] [-wanted N]\n"+
		"             [-slices N] [-slice-ids 0,1] [-resume TOKEN] [-token T | -cert F -key F] [-ca-cert F]\n\n"+
		"Writes every document as {\"put\": id, \"fields\": {...}} per line on stdout\n"+
		"(and removed ones as {\"remove\": id} with -include-removes).\n\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "visit: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return cli.ExitUsage
	}
	if req.DocType != "" && req.Namespace == "" || req.DocType == "" && req.Cluster == "" {
		fmt.Fprintln(stderr, "visit: give -namespace and -type, or -cluster to visit every type")
		return cli.ExitUsage
	}
	if sliceIDs != "" {
		for s := range strings.SplitSeq(sliceIDs, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintf(stderr, "visit: -slice-ids: %q is not a number\n", s)
				return cli.ExitUsage
			}
			req.SliceIDs = append(req.SliceIDs, id)
		}
	}

	opts, err := creds.Options()
	if err != nil {
		fmt.Fprintf(stderr, "visit: %v\n", err)
		return cli.ExitUsage
	}
	c, err := vespa.NewClient(endpoint, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "visit: %v\n", err)
		return cli.ExitUsage
	}
	defer c.Close()
	line := progressLine(stderr)
	if line != nil {
		req.Progress = line.show
	}
	v, err := c.Visitor(req)
	if err != nil {
		fmt.Fprintf(stderr, "visit: %v\n", err)
		return cli.ExitUsage
	}

	start := time.Now()
	w := newBatchWriter(stdout, v)
	var failure error
	for doc, err := range v.All(ctx) {
		if err != nil {
			failure = err
			break
		}
		if err := w.add(doc); err != nil {
			failure = err
			break
		}
	}
	// The loop is over: the visitor's token now covers every document
	// yielded, all of which are written or in the batch.
	if err := w.flush(); err != nil {
		failure = err
	}

	line.clear()
	st := v.Stats()
	elapsed := time.Since(start)
	fmt.Fprintf(stderr, "visit: %d documents in %d pages, %.1fs (%.0f documents/s), %d of %d slices finished\n",
		w.written, st.Pages, elapsed.Seconds(), float64(w.written)/max(elapsed.Seconds(), 1e-9), st.SlicesDone, st.Slices)
	switch {
	case failure != nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "visit: interrupted; run the same command with -resume and the token below to go on where it stopped")
	case failure != nil:
		fmt.Fprintf(stderr, "visit: %v\n", failure)
	}
	fmt.Fprintf(stderr, "visit: resume token: %s\n", w.token)
	if failure != nil || !v.Done() {
		return cli.ExitFailed
	}
	return cli.ExitOK
}
