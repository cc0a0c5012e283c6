package cloud

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
)

// The environment variables of Vespa's CLI that [FromEnvironment] and
// [DataPlaneFromEnvironment] read, as the CLI names them
// (client/go/internal/cli/cmd/config.go in Vespa's source). They are names,
// not credentials.
//
//nolint:gosec // G101: variable names, not secrets
const (
	EnvCLIHome             = "VESPA_CLI_HOME"
	EnvAPIKey              = "VESPA_CLI_API_KEY"
	EnvAPIKeyFile          = "VESPA_CLI_API_KEY_FILE"
	EnvCloudSystem         = "VESPA_CLI_CLOUD_SYSTEM"
	EnvDataPlaneToken      = "VESPA_CLI_DATA_PLANE_TOKEN"
	EnvDataPlaneCert       = "VESPA_CLI_DATA_PLANE_CERT"
	EnvDataPlaneCertFile   = "VESPA_CLI_DATA_PLANE_CERT_FILE"
	EnvDataPlaneKey        = "VESPA_CLI_DATA_PLANE_KEY"
	EnvDataPlaneKeyFile    = "VESPA_CLI_DATA_PLANE_KEY_FILE"
	EnvDataPlaneCACert     = "VESPA_CLI_DATA_PLANE_CA_CERT"
	EnvDataPlaneCACertFile = "VESPA_CLI_DATA_PLANE_CA_CERT_FILE"
	EnvDataPlaneTrustAll   = "VESPA_CLI_DATA_PLANE_TRUST_ALL"
)

// Vespa's CLI's file names and systems.
const (
	cliAuthConfigFile        = "auth.json"
	cliAPIKeyFileSuffix      = ".api-key.pem" //nolint:gosec // G101: a file name suffix
	cliDefaultHomeDirName    = ".vespa"
	cliSystemPublic          = "public"
	cliSystemPublicCD        = "publiccd"
	cliSystemMain            = "main"
	cliSystemCD              = "cd"
	cliSystemPublicCDBaseURL = "https://api-ctl.cd.vespa-cloud.com:4443"
	cliSystemMainBaseURL     = "https://api.vespa.ouryahoo.com:4443"
	cliSystemCDBaseURL       = "https://api-cd.vespa.ouryahoo.com:4443"
)

// FromEnvironment authenticates a [Client] as Vespa's CLI does in a script,
// with the API key of the client's tenant, taken from the first of:
//
//  1. $VESPA_CLI_API_KEY, the PEM key itself (set but empty is an error,
//     as with the CLI);
//  2. $VESPA_CLI_API_KEY_FILE, a file holding it;
//  3. $VESPA_CLI_HOME/<tenant>.api-key.pem, where VESPA_CLI_HOME defaults
//     to ~/.vespa (the file `vespa auth api-key` writes).
//
// It also reads $VESPA_CLI_CLOUD_SYSTEM (public, publiccd, main, cd) to
// choose the control-plane endpoint, unless [WithEndpoint] is given. It
// counts as the one authentication option of [NewClient]. When no key is
// found, NewClient fails with an error matching [ErrNoCredentials] that names
// the places looked.
//
// The CLI's `vespa auth login` session ($VESPA_CLI_HOME/auth.json) is not
// read: it is an OAuth login that the CLI refreshes itself. Outside CI the
// CLI prefers that login over the key file of step 3; FromEnvironment, which
// cannot use it, takes the key file, and pass an access token with
// [WithAccessToken] to use a login instead.
func FromEnvironment() Option {
	return newOption("FromEnvironment", func(c *config) error {
		key, err := cliAPIKey(c.env, c.app.Tenant)
		if err != nil {
			return err
		}
		if err := c.setAPIKey(key); err != nil {
			return err
		}
		if name, ok := c.env(EnvCloudSystem); ok && name != "" {
			u, err := systemURL(name)
			if err != nil {
				return err
			}
			c.envEndpoint = u
		}
		return nil
	})
}

// cliAPIKey finds the API key as Vespa's CLI does (see [FromEnvironment]).
func cliAPIKey(env func(string) (string, bool), tenant string) ([]byte, error) {
	if key, ok := env(EnvAPIKey); ok {
		if key == "" {
			return nil, fmt.Errorf("%w: %s is set but empty", ErrNoCredentials, EnvAPIKey)
		}
		return []byte(key), nil
	}
	if path, ok := env(EnvAPIKeyFile); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvAPIKeyFile, err)
		}
		return b, nil
	}
	home, err := cliHome(env)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, tenant+cliAPIKeyFileSuffix)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		hint := "create one with `vespa auth api-key` or set " + EnvAPIKey + " or " + EnvAPIKeyFile
		if _, serr := os.Stat(filepath.Join(home, cliAuthConfigFile)); serr == nil {
			hint = "found " + filepath.Join(home, cliAuthConfigFile) + " from `vespa auth login`, which is not supported: pass its access token with WithAccessToken, or " + hint
		}
		return nil, fmt.Errorf("%w: %s and %s are not set and %s does not exist; %s", ErrNoCredentials, EnvAPIKey, EnvAPIKeyFile, path, hint)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// cliHome returns $VESPA_CLI_HOME, or ~/.vespa.
func cliHome(env func(string) (string, bool)) (string, error) {
	if home, _ := env(EnvCLIHome); home != "" {
		return home, nil
	}
	userHome, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cloud: Vespa CLI home: %w", err)
	}
	return filepath.Join(userHome, cliDefaultHomeDirName), nil
}

// systemURL returns the control-plane URL of a Vespa Cloud system, by the
// names Vespa's CLI gives them (client/go/internal/vespa/system.go).
func systemURL(name string) (*url.URL, error) {
	var s string
	switch name {
	case cliSystemPublic:
		s = DefaultEndpoint
	case cliSystemPublicCD:
		s = cliSystemPublicCDBaseURL
	case cliSystemMain:
		s = cliSystemMainBaseURL
	case cliSystemCD:
		s = cliSystemCDBaseURL
	default:
		return nil, fmt.Errorf("%s: unknown system %q: want public, publiccd, main or cd", EnvCloudSystem, name)
	}
	return url.Parse(s)
}

// DataPlaneFromEnvironment returns the [DataPlaneOptions] with which Vespa's
// CLI would reach app's data plane, for [Client.DataPlaneClient]:
//
//   - $VESPA_CLI_DATA_PLANE_TOKEN, when not empty, selects the token
//     endpoint and sends it as a bearer token;
//   - otherwise mTLS, with the certificate from $VESPA_CLI_DATA_PLANE_CERT
//     (PEM text), else the file $VESPA_CLI_DATA_PLANE_CERT_FILE, else
//     data-plane-public-cert.pem in [CredentialsDir] (which honours
//     $VESPA_CLI_HOME), and the private key likewise from
//     $VESPA_CLI_DATA_PLANE_KEY, $VESPA_CLI_DATA_PLANE_KEY_FILE or
//     data-plane-private-key.pem. An expired certificate is an error, as
//     with the CLI;
//   - either way, the CA certificate from $VESPA_CLI_DATA_PLANE_CA_CERT
//     (PEM) or $VESPA_CLI_DATA_PLANE_CA_CERT_FILE, and no verification at all
//     when $VESPA_CLI_DATA_PLANE_TRUST_ALL is true (read as strconv.ParseBool
//     does, also yes/no; false, 0, no or empty keep verification on; any
//     other value is an error).
//
// When neither a token nor a certificate is found, the error matches
// [ErrNoCredentials] and names the places looked.
func DataPlaneFromEnvironment(app ApplicationID) (DataPlaneOptions, error) {
	return dataPlaneFromEnv(os.LookupEnv, app, time.Now())
}

func dataPlaneFromEnv(env func(string) (string, bool), app ApplicationID, now time.Time) (DataPlaneOptions, error) {
	var opts DataPlaneOptions
	if v, ok := env(EnvDataPlaneCACert); ok {
		opts.Options = append(opts.Options, vespa.WithCAPEM([]byte(v)))
	} else if f, _ := env(EnvDataPlaneCACertFile); f != "" {
		opts.Options = append(opts.Options, vespa.WithCAFile(f))
	}
	if v, ok := env(EnvDataPlaneTrustAll); ok && v != "" {
		trust, err := parseBool(v)
		if err != nil {
			return opts, fmt.Errorf("cloud: $%s=%q: want true or false (1/0, yes/no)", EnvDataPlaneTrustAll, v)
		}
		if trust {
			opts.Options = append(opts.Options, vespa.WithInsecureSkipVerify())
		}
	}
	if token, _ := env(EnvDataPlaneToken); token != "" {
		opts.Token = token
		return opts, nil
	}
	if err := app.validate(); err != nil {
		return DataPlaneOptions{}, err
	}
	home, err := cliHome(env)
	if err != nil {
		return DataPlaneOptions{}, err
	}
	dir := filepath.Join(home, app.withDefaults().String())
	cert, certFrom, err := credentialPEM(env, EnvDataPlaneCert, EnvDataPlaneCertFile, filepath.Join(dir, DataPlaneCertificateFile))
	if err != nil {
		return DataPlaneOptions{}, err
	}
	key, keyFrom, err := credentialPEM(env, EnvDataPlaneKey, EnvDataPlaneKeyFile, filepath.Join(dir, DataPlanePrivateKeyFile))
	if err != nil {
		return DataPlaneOptions{}, err
	}
	if cert == nil || key == nil {
		return DataPlaneOptions{}, fmt.Errorf("%w: no data-plane token (%s) and no certificate and key (%s, %s or %s; %s, %s or %s): run `vespa auth cert` or set them",
			ErrNoCredentials, EnvDataPlaneToken, EnvDataPlaneCert, EnvDataPlaneCertFile, filepath.Join(dir, DataPlaneCertificateFile),
			EnvDataPlaneKey, EnvDataPlaneKeyFile, filepath.Join(dir, DataPlanePrivateKeyFile))
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return DataPlaneOptions{}, fmt.Errorf("cloud: data-plane certificate (%s) and key (%s): %w", certFrom, keyFrom, err)
	}
	if leaf, err := x509.ParseCertificate(pair.Certificate[0]); err == nil && leaf.NotAfter.Before(now) {
		return DataPlaneOptions{}, fmt.Errorf("cloud: data-plane certificate in %s expired at %s (%s ago)", certFrom,
			leaf.NotAfter.UTC().Format(time.RFC3339), now.Sub(leaf.NotAfter).Truncate(time.Second))
	}
	opts.KeyPair = &KeyPair{CertificatePEM: cert, PrivateKeyPEM: key}
	return opts, nil
}

// credentialPEM reads a PEM credential as Vespa's CLI does: the variable
// textVar holding it, else the file fileVar names (which must exist), else
// the default file (which may be missing: then nil). It returns where it
// came from, for messages: a variable's name or a path, never the content.
func credentialPEM(env func(string) (string, bool), textVar, fileVar, defaultFile string) ([]byte, string, error) {
	if v, ok := env(textVar); ok {
		return []byte(v), textVar, nil
	}
	path, explicit := env(fileVar)
	if !explicit {
		path = defaultFile
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("cloud: %w", err)
	}
	return b, path, nil
}

// parseBool reads an environment flag as strconv.ParseBool does, and also
// yes/no (any case).
func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "y", "on":
		return true, nil
	case "no", "n", "off":
		return false, nil
	}
	return strconv.ParseBool(strings.TrimSpace(v))
}
