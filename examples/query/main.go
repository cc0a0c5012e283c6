// Command query runs one Vespa query and prints its hits as JSON.
//
//	go run ./examples/query -endpoint http://localhost:8080 \
//		-yql 'select * from music where userInput(@text)' -param text=coldplay -hits 5
//
// -endpoint defaults to $VESPA_ENDPOINT, else http://localhost:8080. -token,
// -cert, -key and -ca-cert authenticate as in examples/feed, and default to
// $VESPA_TOKEN, $VESPA_CERT_FILE, $VESPA_KEY_FILE and $VESPA_CA_FILE as in
// examples/quickstart.
//
// Hits go to stdout, one JSON object per line; a summary ("query: 0 hits of 0
// matches", and whether the result is degraded) and errors go to stderr. The exit
// status is 1 when the query fails or its result carries errors, 2 on bad
// usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
)

// params collects repeated -param k=v flags.
type params map[string]any

func (p params) String() string { return fmt.Sprint(map[string]any(p)) }

func (p params) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return errors.New("want key=value")
	}
	p[k] = v
	return nil
}

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// run is the program, testable: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var endpoint string
	cli.EndpointVar(fs, &endpoint)
	yql := fs.String("yql", "", "the YQL `statement` (required unless -query is set)")
	userQuery := fs.String("query", "", "a user query in Vespa's simple query language")
	hits := fs.Int("hits", 0, "number of hits (0: Vespa's default, 10)")
	timeout := fs.Duration("timeout", 0, "query timeout in Vespa (0: Vespa's default, 500ms)")
	get := fs.Bool("get", false, "send a GET instead of a POST")
	var creds credflags.Credentials
	creds.Register(fs)
	ps := params{}
	fs.Var(ps, "param", "extra request parameter `key=value` (repeatable)")
	cli.Usage(fs, "usage: query [-endpoint URL] -yql 'select …' [-hits N] [-param k=v …] [-token T | -cert F -key F] [-ca-cert F]\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if *yql == "" && *userQuery == "" || fs.NArg() > 0 {
		fs.Usage()
		return cli.ExitUsage
	}
	opts, err := creds.Options()
	if err != nil {
		fmt.Fprintln(stderr, "query:", err)
		return cli.ExitUsage
	}
	vc, err := vespa.NewClient(endpoint, opts...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	defer vc.Close()
	qc, err := query.New(vc)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	if *hits < 0 {
		*hits = query.NoHits
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := qc.Search(ctx, &query.Request{YQL: *yql, Query: *userQuery, Hits: *hits, Timeout: *timeout, Params: ps, GET: *get})
	if res != nil {
		enc := json.NewEncoder(stdout)
		for _, h := range res.Hits {
			if e := enc.Encode(h); e != nil {
				fmt.Fprintln(stderr, e)
				return cli.ExitFailed
			}
		}
	}
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitFailed
	}
	summary := fmt.Sprintf("query: %d hits of %d matches", len(res.Hits), res.TotalCount)
	if res.Coverage.IsDegraded() {
		summary += fmt.Sprintf(" (degraded: %.0f%% of the corpus covered)", res.Coverage.Percent)
	}
	fmt.Fprintln(stderr, summary)
	return cli.ExitOK
}
