// Command emulator runs the vespatest Vespa emulator as a standalone server,
// so that any client, Vespa's own CLI included, can be pointed at it:
//
//	go run ./examples/emulator -addr 127.0.0.1:8080 -config-addr 127.0.0.1:19071 -app ./myapp
//	vespa config set target http://127.0.0.1:8080
//	vespa feed docs.jsonl
//
// It serves until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"syscall"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/vespa/vespatest"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) }, os.Interrupt, syscall.SIGTERM)
}

// run is the program: it serves until ctx ends and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` of the container API (document/v1, /search/, health)")
	configAddr := fs.String("config-addr", "", "`address` of the config-server API (deploy); empty: a free loopback port")
	app := fs.String("app", "", "application package `directory` to start with (schemas/*.sd, services.xml); empty: lenient mode")
	verbose := fs.Bool("v", false, "log requests handled by the emulator's internals")
	cli.Usage(fs, "Usage: emulator [-addr host:port] [-config-addr host:port] [-app dir] [-v]\n\n"+
		"Runs an in-process Vespa emulator (github.com/govespa/govespa/vespa/vespatest) until interrupted.\n\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opts := []vespatest.Option{
		vespatest.WithAddr(*addr),
		vespatest.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))),
	}
	if *configAddr != "" {
		opts = append(opts, vespatest.WithConfigServerAddr(*configAddr))
	}
	if *app != "" {
		opts = append(opts, vespatest.WithApplicationDir(*app))
	}
	srv, err := vespatest.Start(opts...) //nolint:contextcheck // an emulator, like an httptest server, lives until Close, not for a context
	if err != nil {
		return cli.Failed(stderr, "emulator", err)
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "container:     %s\nconfig server: %s\n", srv.URL(), srv.ConfigServerURL()) //nolint:contextcheck // the config server lives until srv.Close, like srv
	<-ctx.Done()
	return cli.ExitOK
}
