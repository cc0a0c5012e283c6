package deploy

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Activate activates a session the config server prepared but did not
// activate (the session of an [ErrNotActivated] from [ConfigServer.Deploy]),
// with PUT /application/v2/tenant/default/prepareandactivate/<id>. Nothing
// is uploaded: activating a prepared session again is idempotent (a second
// activation of an active session answers 200 as the first did), so it runs
// under the retry policy, which retries the config server's transient 409s
// such as PARENT_HOST_NOT_READY. An ACTIVATION_CONFLICT (another session was
// activated since this one was prepared) is final: deploy again. The time
// left on ctx is sent as the config server's timeout.
func (c *ConfigServer) Activate(ctx context.Context, s *Session) error {
	if s == nil {
		return errors.New("deploy: activate: nil session")
	}
	u := c.base.JoinPath("application/v2/tenant/default/prepareandactivate", strconv.FormatInt(s.ID, 10))
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		if left <= 0 {
			return fmt.Errorf("deploy: activate session %d: no time left on ctx for the config server's timeout: %w", s.ID, context.DeadlineExceeded)
		}
		u.RawQuery = url.Values{"timeout": {TimeoutParam(left)}}.Encode()
	}
	reply, err := ctlplane.DoJSON[ctlplane.MessageReply](ctx, c.t, ctlplane.Call{Op: "activate", Method: "PUT", URL: u})
	if err != nil {
		return err
	}
	s.Activated = true
	if reply.Message != "" {
		s.Message = reply.Message
	}
	return nil
}

// WaitForActivation calls [ConfigServer.Activate] every poll interval until
// the session is active, waiting out transient failures (the config
// server's transient 409s, 5xx, connection errors) as long as ctx allows
// ([DefaultWaitTimeout] without a deadline). A final error, such as
// ACTIVATION_CONFLICT, ends it at once.
func (c *ConfigServer) WaitForActivation(ctx context.Context, s *Session) error {
	if s == nil {
		return errors.New("deploy: wait for activation: nil session")
	}
	return ctlplane.Poll(ctx, "deploy", fmt.Sprintf("activation of session %d", s.ID), c.poll, DefaultWaitTimeout, func(ctx context.Context) (bool, error) {
		if err := c.Activate(ctx, s); err != nil {
			return false, err
		}
		return true, nil
	})
}
