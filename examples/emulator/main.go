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
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/vespa/vespatest"
)

func main() {
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` of the container API (document/v1, /search/, health)")
	configAddr := fs.String("config-addr", "", "`address` of the config-server API (deploy); empty: a free loopback port")
	app := fs.String("app", "", "application package `directory` to start with (schemas/*.sd, services.xml); empty: lenient mode")
	verbose := fs.Bool("v", false, "log requests handled by the emulator's internals")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: emulator [-addr host:port] [-config-addr host:port] [-app dir] [-v]\n\n"+
			"Runs an in-process Vespa emulator (github.com/govespa/govespa/vespa/vespatest) until interrupted.\n\n")
		fs.PrintDefaults()
	}
	if code, ok := cli.Parse(fs, os.Args[1:]); !ok {
		os.Exit(code)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opts := []vespatest.Option{
		vespatest.WithAddr(*addr),
		vespatest.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))),
	}
	if *configAddr != "" {
		opts = append(opts, vespatest.WithConfigServerAddr(*configAddr))
	}
	if *app != "" {
		opts = append(opts, vespatest.WithApplicationDir(*app))
	}
	srv, err := vespatest.Start(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "emulator:", err)
		os.Exit(cli.ExitFailed)
	}
	fmt.Printf("container:     %s\nconfig server: %s\n", srv.URL(), srv.ConfigServerURL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	srv.Close()
}
