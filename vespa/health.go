package vespa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
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
	resp, err := c.rc.R().SetContext(ctx).SetHeader("Accept", "application/json").Get(c.base + path)
	if err != nil {
		return &Error{Op: "health", Path: path, Err: unwrapURLError(err)}
	}
	var h struct {
		Status struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	}
	if err := json.Unmarshal(resp.Body(), &h); err != nil || h.Status.Code == "" {
		return &Error{Op: "health", Path: path, Status: resp.StatusCode(), Message: excerpt(resp.Body())}
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
