package vespacontainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa/deploy"
)

const (
	// logsTimeout bounds reading a failed container's logs.
	logsTimeout = 30 * time.Second
	// answerPoll is the pause between two rounds of the answer checks.
	answerPoll = 500 * time.Millisecond
	// probeTimeout bounds one probe request.
	probeTimeout = 10 * time.Second
)

// ready finds the published endpoints, deploys the application and waits
// until the container API answers, all within the startup timeout.
func (c *Container) ready(ctx context.Context, s settings) error {
	ctx, cancel := context.WithTimeout(ctx, s.startup)
	defer cancel()
	var err error
	if c.endpoint, err = c.PortEndpoint(ctx, ContainerPort, "http"); err != nil {
		return fmt.Errorf("container port %s: %w", ContainerPort, err)
	}
	if s.configServer {
		if c.configServer, err = c.PortEndpoint(ctx, ConfigServerPort, "http"); err != nil {
			return fmt.Errorf("config server port %s: %w", ConfigServerPort, err)
		}
	}
	if s.app != "" {
		if err := c.deploy(ctx, s.app); err != nil {
			return err
		}
	}
	if s.app == "" && s.configServer {
		// Vespa's container port answers only once an application is
		// deployed: there is nothing more to wait for.
		return nil
	}
	return c.waitForAnswers(ctx)
}

// deploy deploys the package in dir and waits for it to converge on the
// published container endpoint.
func (c *Container) deploy(ctx context.Context, dir string) error {
	cs, err := deploy.NewConfigServer(c.configServer, deploy.WithPollInterval(time.Second))
	if err != nil {
		return err
	}
	pkg, err := deploy.NewPackage(dir)
	if err != nil {
		return err
	}
	if _, err := cs.DeployAndWait(ctx, pkg, deploy.Params{ContainerURLs: []string{c.endpoint}}); err != nil {
		return fmt.Errorf("deploying %s: %w", dir, err)
	}
	return nil
}

// waitForAnswers waits until /document/v1 and /search/ answer as a Vespa
// with an application does: a visit or a query that is not a 5xx. A
// container that reports "up" may still answer 503 while its content
// nodes join.
func (c *Container) waitForAnswers(ctx context.Context) error {
	hc := &http.Client{Timeout: probeTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	probes := []string{
		c.endpoint + "/state/v1/health",
		c.endpoint + "/document/v1/?wantedDocumentCount=1&timeout=5s",
		c.endpoint + "/search/?yql=select+*+from+sources+*+where+true&hits=0",
	}
	var last error
	for {
		last = nil
		for _, u := range probes {
			if err := probe(ctx, hc, u); err != nil {
				last = err
				break
			}
		}
		if last == nil {
			return nil
		}
		t := time.NewTimer(answerPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(fmt.Errorf("the container API did not answer: %w", ctx.Err()), last)
		case <-t.C:
		}
	}
}

// probe sends one GET and returns an error unless it is answered below 500.
func probe(ctx context.Context, hc *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode >= http.StatusInternalServerError {
		return fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	return nil
}
