package cloud

import (
	"context"
	"fmt"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Endpoint is a data-plane endpoint of a deployment.
type Endpoint struct {
	// Cluster is the container cluster it serves, such as "default".
	Cluster string `json:"cluster"`
	// URL is its base URL, such as "https://abc.def.z.vespa-app.cloud/".
	URL string `json:"url"`
	// Scope is "zone", "global", "application" or another scope; use a zone
	// endpoint for feeding.
	Scope string `json:"scope"`
	// AuthMethod is "mtls" or "token". Older controllers leave it out; it is
	// then "mtls".
	AuthMethod string `json:"authMethod"`
	// RoutingMethod is how requests are routed, such as "exclusive".
	RoutingMethod string `json:"routingMethod,omitempty"`
}

// Authentication methods of endpoints.
const (
	AuthMTLS  = "mtls"
	AuthToken = "token"
)

// EndpointFilter selects endpoints; a zero field selects all.
type EndpointFilter struct {
	// AuthMethod selects "mtls" ([AuthMTLS]) or "token" ([AuthToken]) endpoints.
	AuthMethod string
	// Cluster selects the endpoints of one container cluster.
	Cluster string
	// Scope selects a scope, such as "zone".
	Scope string
}

func (f EndpointFilter) match(e Endpoint) bool {
	return (f.AuthMethod == "" || f.AuthMethod == e.AuthMethod) &&
		(f.Cluster == "" || f.Cluster == e.Cluster) &&
		(f.Scope == "" || f.Scope == e.Scope)
}

// Endpoints returns the endpoints of the deployment in zone that filter
// selects, in the order the controller lists them, discovered from GET
// .../instance/I/environment/E/region/R. Endpoint URLs are not stable: always
// discover them rather than building them.
func (c *Client) Endpoints(ctx context.Context, zone Zone, filter EndpointFilter) ([]Endpoint, error) {
	if err := zone.validate(); err != nil {
		return nil, fmt.Errorf("cloud: endpoints: %w", err)
	}
	r, err := c.t.Do(ctx, ctlplane.Call{Op: "endpoints", Method: "GET", URL: c.deploymentURL(zone)})
	if err != nil {
		return nil, err
	}
	return decodeEndpoints(r.Body, filter)
}

func decodeEndpoints(body []byte, filter EndpointFilter) ([]Endpoint, error) {
	reply, err := ctlplane.DecodeJSON[struct {
		Endpoints []Endpoint `json:"endpoints"`
	}]("cloud", "endpoints", body)
	if err != nil {
		return nil, err
	}
	var out []Endpoint
	for _, e := range reply.Endpoints {
		if e.AuthMethod == "" {
			e.AuthMethod = AuthMTLS
		}
		if filter.match(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Delete deactivates the deployment in a dev or perf zone with DELETE
// .../instance/I/environment/E/region/R and returns the controller's message.
// Production deployments are removed through deployment.xml, not here.
func (c *Client) Delete(ctx context.Context, zone Zone) (string, error) {
	if err := checkManualZone("delete", zone); err != nil {
		return "", err
	}
	reply, err := ctlplane.DoJSON[ctlplane.MessageReply](ctx, c.t, ctlplane.Call{Op: "delete", Method: "DELETE", URL: c.deploymentURL(zone)})
	if err != nil {
		return "", err
	}
	return reply.Message, nil
}
