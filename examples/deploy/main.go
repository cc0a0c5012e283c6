// Command deploy deploys a Vespa application package, to a self-hosted config
// server or to a Vespa Cloud dev or perf zone, and waits until it serves.
//
// Self-hosted:
//
//	go run ./examples/deploy -config-server http://localhost:19071 my-app
//
// It then waits for the containers the config server reports, at the config
// server's host. When Vespa runs in Docker with its ports mapped elsewhere
// (-p 8081:8080), name the containers as this machine reaches them:
//
//	go run ./examples/deploy -config-server http://localhost:19071 \
//		-container-url http://localhost:8081 my-app
//
// Vespa Cloud, streaming the run's log:
//
//	go run ./examples/deploy -tenant T -application A [-instance I] \
//		-zone dev.aws-us-east-1c -api-key-file ~/.vespa/T.api-key.pem my-app
//
// Without -api-key-file the API key is found as Vespa's CLI finds it:
// $VESPA_CLI_API_KEY, $VESPA_CLI_API_KEY_FILE, then
// $VESPA_CLI_HOME/<tenant>.api-key.pem (~/.vespa by default).
//
// -timeout bounds the whole command and, self-hosted, is also sent as the
// config server's own timeout for preparing and activating the package.
// -endpoint overrides the control-plane URL (for example to target
// cloudtest's Server). The exit status is 1 when the deployment fails, 2 for
// usage errors.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/deploy"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// options are the command's flags.
type options struct {
	configServer, tenant, application, instance, zone, apiKeyFile, endpoint, vespaVersion string
	containerURLs                                                                         []string
	timeout, poll                                                                         time.Duration
	dir                                                                                   string
}

// run parses args and deploys; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.configServer, "config-server", "", "URL of a self-hosted config server, such as http://localhost:19071")
	fs.Func("container-url", "a container's URL to wait for, as reached from here (repeatable; default: those the config server reports)",
		func(s string) error {
			o.containerURLs = append(o.containerURLs, s)
			return nil
		})
	fs.StringVar(&o.tenant, "tenant", "", "Vespa Cloud tenant")
	fs.StringVar(&o.application, "application", "", "Vespa Cloud application")
	fs.StringVar(&o.instance, "instance", "default", "Vespa Cloud instance")
	fs.StringVar(&o.zone, "zone", cloud.DefaultDevZone.String(), "Vespa Cloud dev or perf zone")
	fs.StringVar(&o.apiKeyFile, "api-key-file", "", "Vespa Cloud API key (PEM); default: as Vespa's CLI finds it ($VESPA_CLI_API_KEY, $VESPA_CLI_API_KEY_FILE, $VESPA_CLI_HOME/<tenant>.api-key.pem)")
	fs.StringVar(&o.endpoint, "endpoint", "", "Vespa Cloud control-plane URL (default "+cloud.DefaultEndpoint+", or the system of $VESPA_CLI_CLOUD_SYSTEM)")
	fs.StringVar(&o.vespaVersion, "vespa-version", "", "pin the Vespa version (Vespa Cloud only)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "give up after this long; self-hosted, also the config server's timeout for the deployment")
	fs.DurationVar(&o.poll, "poll", cloud.DefaultPollInterval, "how often to poll while waiting")
	cli.Usage(fs, "usage:\n  deploy -config-server URL [flags] DIR\n  deploy -tenant T -application A [-instance I] [-zone Z] [-api-key-file F] [flags] DIR\n\nflags:\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.ExitUsage
	}
	o.dir = fs.Arg(0)
	if o.timeout <= 0 {
		fmt.Fprintln(stderr, "deploy: -timeout must be positive")
		return cli.ExitUsage
	}
	if (o.configServer == "") == (o.tenant == "" && o.application == "") {
		fmt.Fprintln(stderr, "deploy: give either -config-server or -tenant and -application")
		fs.Usage()
		return cli.ExitUsage
	}

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	pkg, err := deploy.NewPackage(o.dir)
	if err != nil {
		return cli.Failed(stderr, "deploy", err)
	}
	if o.configServer != "" {
		err = deploySelfHosted(ctx, o, pkg, stdout)
	} else {
		err = deployCloud(ctx, o, pkg, stdout)
	}
	if err != nil {
		return cli.Failed(stderr, "deploy", err)
	}
	return cli.ExitOK
}

// deploySelfHosted deploys pkg to a config server and waits for it.
func deploySelfHosted(ctx context.Context, o options, pkg *deploy.Package, stdout io.Writer) error {
	cs, err := deploy.NewConfigServer(o.configServer, deploy.WithPollInterval(o.poll))
	if err != nil {
		return err
	}
	// Params.Timeout is left zero: the time left on ctx (-timeout) is sent as
	// the config server's own timeout, so it gives up when this command does.
	s, err := cs.DeployAndWait(ctx, pkg, deploy.Params{ContainerURLs: o.containerURLs})
	if s != nil {
		for _, l := range s.Log {
			fmt.Fprintf(stdout, "%-7s %s\n", l.Level, l.Message)
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\nsession %d converged and the containers are up\n", s.Message, s.ID)
	return nil
}

// deployCloud deploys pkg to a Vespa Cloud zone and streams the run's log.
func deployCloud(ctx context.Context, o options, pkg *deploy.Package, stdout io.Writer) error {
	zone, err := cloud.ParseZone(o.zone)
	if err != nil {
		return err
	}
	auth := cloud.FromEnvironment() // the API key where Vespa's CLI finds it
	if o.apiKeyFile != "" {
		auth = cloud.WithAPIKeyFile(o.apiKeyFile)
	}
	opts := []cloud.Option{auth, cloud.WithPollInterval(o.poll)}
	if o.endpoint != "" {
		opts = append(opts, cloud.WithEndpoint(o.endpoint))
	}
	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: o.tenant, Application: o.application, Instance: o.instance}, opts...)
	if err != nil {
		return err
	}
	r, err := c.Deploy(ctx, zone, pkg, cloud.DeployOptions{VespaVersion: o.vespaVersion})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, r.Message)
	res, err := c.FollowRun(ctx, r, func(e cloud.LogEntry) {
		fmt.Fprintf(stdout, "[%s] %-7s %s\n", e.At.UTC().Format("15:04:05"), e.Type, e.Message)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "run %d of %s ended with status %s\n", r.ID, zone.Job(), res.Status)
	eps, err := c.Endpoints(ctx, zone, cloud.EndpointFilter{})
	if err != nil {
		return err
	}
	for _, e := range eps {
		fmt.Fprintf(stdout, "endpoint %s (cluster %s, %s)\n", e.URL, e.Cluster, e.AuthMethod)
	}
	return nil
}
