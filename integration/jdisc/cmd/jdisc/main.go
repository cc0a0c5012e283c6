// Command jdisc runs the JDisc harness (package
// github.com/govespa/govespa/integration/jdisc) as a standalone server: Vespa's
// own container code serving document/v1 and /search/ over an in-memory store,
// so that Vespa's CLI, curl and the examples can be pointed at it:
//
//	go run ./integration/jdisc/cmd/jdisc -addr 127.0.0.1:8080 -app integration/testdata/app
//	vespa config set target http://127.0.0.1:8080
//	vespa feed docs.jsonl
//
// The first run builds the harness with mvn (cached in the user cache
// directory). It needs java and mvn, and serves until interrupted. The
// container listens on every interface (Vespa's connector sets only a port).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/govespa/govespa/integration/jdisc"
	"github.com/govespa/govespa/internal/cli"
)

func main() {
	cli.Main(func(ctx context.Context) int { return command(ctx, os.Args[1:]) }, os.Interrupt, syscall.SIGTERM)
}

// command parses the flags and runs the harness until ctx ends; it returns
// the exit status.
func command(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("jdisc", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` of the container (document/v1, /search/, /harness/v1); only its port is used")
	app := fs.String("app", "integration/testdata/app", "application package `directory` whose schemas/*.sd and content cluster the harness serves")
	pkg := fs.String("package", "", "`directory` to write the harness's own application package to; empty: a temporary one")
	heap := fs.String("Xmx", "1g", "the JVM's maximum heap")
	cli.Usage(fs, "Usage: jdisc [-addr host:port] [-app dir] [-package dir] [-Xmx size]\n\n"+
		"Runs Vespa's container (JDisc) with the govespa harness until interrupted.\n\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if err := run(ctx, *addr, *app, *pkg, *heap); err != nil {
		return cli.Failed(os.Stderr, "jdisc", err)
	}
	return cli.ExitOK
}

func run(ctx context.Context, addr, app, pkg, heap string) error {
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("-addr %q: bad port", addr)
	}
	start := time.Now()
	b, err := jdisc.Build(ctx, func(s string) {
		if s != "" {
			fmt.Fprintln(os.Stderr, s)
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "jdisc: harness built in %v (cached: %v): %s\n", time.Since(start).Round(time.Millisecond), b.Cached, b.Dir)
	h, err := jdisc.Start(ctx, b, jdisc.Config{App: app, Port: port, PackageDir: pkg, MaxHeap: heap, Log: os.Stderr})
	if err != nil {
		return err
	}
	defer h.Close()
	fmt.Printf("container: %s (content cluster %s; JVM ready in %v)\ncontrol:   %s/harness/v1/{ready,reset,faults}\n", h.URL, h.Cluster, h.Startup, h.URL)
	<-ctx.Done()
	return nil
}
