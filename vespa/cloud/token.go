package cloud

import (
	"context"
	"fmt"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Token is a data-plane access token. Send Value as "Authorization: Bearer
// <value>" to an endpoint whose AuthMethod is "token"; the application's
// services.xml must list the token id under <clients>.
type Token struct {
	// ID is the token's name.
	ID string
	// Value is the secret, such as "vespa_cloud_...". It is shown only once.
	Value string
	// Fingerprint identifies this version of the token.
	Fingerprint string
	// Expiration is when it expires; zero when it does not.
	Expiration time.Time
}

// CreateToken creates a data-plane token (or a new version of it) for the
// client's tenant with POST /application/v4/tenant/T/token/<tokenID>, valid
// for ttl (0: the controller's default). The path and the reply's shape
// ({"id","token","fingerprint","expiration"}) follow the console's API; they
// are not part of Vespa's open-source clients. The request is sent once
// (retries.Upload): a lost reply is an error matching [ErrOutcomeUnknown].
func (c *Client) CreateToken(ctx context.Context, tokenID string, ttl time.Duration) (*Token, error) {
	if !validName(tokenID) {
		return nil, fmt.Errorf("cloud: create token: invalid token id %q", tokenID)
	}
	u := c.base.JoinPath("application/v4/tenant", c.app.Tenant, "token", tokenID)
	if ttl > 0 {
		u.RawQuery = "expiration=" + ttl.Round(time.Second).String()
	}
	reply, err := ctlplane.UploadJSON[struct {
		ID          string `json:"id"`
		Token       string `json:"token"`
		Fingerprint string `json:"fingerprint"`
		Expiration  string `json:"expiration"`
	}](ctx, c.t, ctlplane.Call{Op: "create token", Method: "POST", URL: u,
		Check: "list the tenant's tokens in the console; a version made then is not shown again: expire it and create another"})
	if err != nil {
		return nil, err
	}
	t := &Token{ID: reply.ID, Value: reply.Token, Fingerprint: reply.Fingerprint}
	if t.ID == "" {
		t.ID = tokenID
	}
	if reply.Expiration != "" && reply.Expiration != "none" {
		if exp, err := time.Parse(time.RFC3339, reply.Expiration); err == nil {
			t.Expiration = exp
		}
	}
	return t, nil
}
