package cloud

import (
	"context"
	"crypto/tls"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/govespa/govespa/vespa"
)

// DataPlaneOptions choose the endpoint and the credentials of
// [Client.DataPlaneClient]. The zero value uses mTLS with the key pair that
// Vespa's CLI keeps in [CredentialsDir]; [DataPlaneFromEnvironment] fills
// them from the CLI's variables too (VESPA_CLI_DATA_PLANE_TOKEN, ...).
type DataPlaneOptions struct {
	// Cluster is the container cluster; "" means the deployment's only one.
	Cluster string
	// Token, when set, selects the token endpoint and authenticates with
	// "Authorization: Bearer <token>" instead of mTLS.
	Token string
	// KeyPair is the mTLS key pair; nil means CertificateFile and
	// PrivateKeyFile.
	KeyPair *KeyPair
	// CertificateFile is the mTLS certificate's PEM file, used when KeyPair
	// is nil; "" means data-plane-public-cert.pem in [CredentialsDir].
	CertificateFile string
	// PrivateKeyFile is the mTLS private key's PEM file, used when KeyPair is
	// nil; "" means data-plane-private-key.pem in [CredentialsDir].
	PrivateKeyFile string
	// Options are more options for vespa.NewClient, applied after the
	// endpoint's credentials.
	Options []vespa.Option
}

// DataPlaneClient discovers the zone endpoint of the deployment in zone that
// matches opts ([Client.Endpoints]) and returns a *vespa.Client for it, with
// a token or an mTLS key pair. The caller closes the returned client.
func (c *Client) DataPlaneClient(ctx context.Context, zone Zone, opts DataPlaneOptions) (*vespa.Client, error) {
	auth := AuthMTLS
	if opts.Token != "" {
		auth = AuthToken
	}
	eps, err := c.Endpoints(ctx, zone, EndpointFilter{AuthMethod: auth, Cluster: opts.Cluster})
	if err != nil {
		return nil, err
	}
	ep, err := pickEndpoint(eps, auth, zone)
	if err != nil {
		return nil, err
	}
	var vopts []vespa.Option
	switch {
	case opts.Token != "":
		vopts = append(vopts, vespa.WithToken(opts.Token))
	case opts.KeyPair != nil:
		cert, err := tls.X509KeyPair(opts.KeyPair.CertificatePEM, opts.KeyPair.PrivateKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("cloud: data-plane key pair: %w", err)
		}
		vopts = append(vopts, vespa.WithCertificate(cert))
	default:
		certFile, keyFile := opts.CertificateFile, opts.PrivateKeyFile
		if certFile == "" || keyFile == "" {
			dir, err := CredentialsDir(c.app)
			if err != nil {
				return nil, err
			}
			if certFile == "" {
				certFile = filepath.Join(dir, DataPlaneCertificateFile)
			}
			if keyFile == "" {
				keyFile = filepath.Join(dir, DataPlanePrivateKeyFile)
			}
		}
		vopts = append(vopts, vespa.WithCertificateFiles(certFile, keyFile))
	}
	vopts = append(vopts, opts.Options...)
	vc, err := vespa.NewClient(strings.TrimSuffix(ep.URL, "/"), vopts...)
	if err != nil {
		return nil, fmt.Errorf("cloud: data-plane client for %s: %w", ep.URL, err)
	}
	return vc, nil
}

// pickEndpoint chooses among endpoints of one auth method: a zone endpoint
// if there is one, and only one cluster.
func pickEndpoint(eps []Endpoint, auth string, zone Zone) (Endpoint, error) {
	if zoned := slices.DeleteFunc(slices.Clone(eps), func(e Endpoint) bool { return e.Scope != "zone" }); len(zoned) > 0 {
		eps = zoned
	}
	var clusters []string
	for _, e := range eps {
		if !slices.Contains(clusters, e.Cluster) {
			clusters = append(clusters, e.Cluster)
		}
	}
	switch len(clusters) {
	case 0:
		return Endpoint{}, fmt.Errorf("cloud: no %s endpoint in %s", auth, zone)
	case 1:
		return eps[0], nil
	}
	return Endpoint{}, fmt.Errorf("cloud: %d clusters have %s endpoints in %s (%s): set DataPlaneOptions.Cluster",
		len(clusters), auth, zone, strings.Join(clusters, ", "))
}
