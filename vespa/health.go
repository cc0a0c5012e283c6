package vespa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// ErrNotReady is matched by the error of [Client.Health] when the container
// answers but its status code is not "up".
var ErrNotReady = errors.New("vespa: not ready")

// Health reads the container's /state/v1/health and returns nil when its
// status.code is "up". The HTTP status alone says nothing: a container that
// is "initializing" answers 200 too. An answer with another code gives an
// error matching [ErrNotReady]; a failed request gives an [*Error].
func (c *Client) Health(ctx context.Context) error {
	const path = "/state/v1/health"
	resp, err := c.x.Do(ctx, &wire.Request{
		Op: "health", Path: c.prefix + path, Method: http.MethodGet, URL: c.base + path,
		Header: http.Header{"Accept": {"application/json"}},
		Limit:  wire.DefaultSmallLimit, Timeout: HealthTimeout,
	})
	if err != nil {
		return err
	}
	var h struct {
		Status struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	}
	if err := json.Unmarshal(resp.Body, &h); err != nil || h.Status.Code == "" {
		if resp.OK() {
			return wire.Malformed("health", "", c.prefix+path, resp.Status, resp.Body, "not a /state/v1/health answer (no status.code)", nil)
		}
		return wire.StatusError("health", "", c.prefix+path, resp, "")
	}
	if h.Status.Code != "up" {
		msg := h.Status.Code
		if h.Status.Message != "" {
			msg += ": " + h.Status.Message
		}
		return fmt.Errorf("%w: status %q", ErrNotReady, msg)
	}
	return nil
}

// HealthTimeout bounds one [Client.Health] request, when ctx has no earlier
// deadline.
const HealthTimeout = 10 * time.Second

// readyPoll is the interval between health checks of WaitUntilReady.
const readyPoll = 500 * time.Millisecond

// WaitUntilReady calls [Client.Health] every half second until it succeeds
// or ctx ends; then it returns ctx's error joined with the last health error
// that ctx's end did not cause (a check cut short by the deadline says only
// "context deadline exceeded", which would hide the real cause, such as an
// x509 error, of the checks before it). Give ctx a deadline.
func (c *Client) WaitUntilReady(ctx context.Context) error {
	t := time.NewTicker(readyPoll)
	defer t.Stop()
	var last error
	for {
		err := c.Health(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil || last == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return errors.Join(context.Cause(ctx), last)
		case <-t.C:
		}
	}
}
