// Package cloud scripts Vespa Cloud's control plane: it deploys application
// packages (package deploy) to dev and perf zones and follows the run,
// submits them to production and follows the build, lists endpoints,
// creates data-plane tokens and hands out ready data-plane clients. A
// self-hosted config server is package deploy's ConfigServer.
//
// Create a [Client] for a tenant, application and instance with an API key
// ([WithAPIKey], [WithAPIKeyFile]), an access token ([WithAccessToken]), or
// the credentials Vespa's CLI would use ([FromEnvironment]: VESPA_CLI_API_KEY,
// VESPA_CLI_API_KEY_FILE, then $VESPA_CLI_HOME/<tenant>.api-key.pem).
// Requests with an API key are signed as Vespa Cloud verifies them (ECDSA
// P-256 over method, URL, timestamp and body hash), again for every attempt.
// Deploy to a dev or perf zone and follow the run's log:
//
//	pkg, err := deploy.NewPackage("my-app")
//	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: "t", Application: "a"},
//		cloud.FromEnvironment())
//	run, err := c.Deploy(ctx, cloud.DefaultDevZone, pkg, cloud.DeployOptions{})
//	_, err = c.FollowRun(ctx, run, func(e cloud.LogEntry) { fmt.Println(e.Message) })
//
// A run that ends other than in success is a [*RunError]. Then
// [Client.Endpoints] lists the deployment's endpoints and
// [Client.DataPlaneClient] returns a ready *vespa.Client for one of them
// ([DataPlaneFromEnvironment] takes its credentials where Vespa's CLI does).
// [Client.Submit] and [Client.WaitForBuild] take a package to production;
// [Client.Delete] removes a dev deployment; [GenerateKeyPair] and
// [KeyPair.Save] make the data-plane certificate that
// deploy.Package.WithClientCertificate adds to a package, saved where
// Vespa's CLI keeps it ([CredentialsDir]). Package cloudtest emulates the
// control plane for tests.
//
// # Uploads, retries and waits
//
// [Client.Deploy], [Client.Submit] and [Client.CreateToken] are sent exactly
// once (retries.Upload), as Vespa's CLI and Java client send them: when the
// reply is lost the error matches [ErrOutcomeUnknown] and says where to look,
// rather than starting a second run or build. Reads and status polls run
// under retries.ControlPlane by default: transport errors and 5xx replies
// are retried, final 4xx (such as 400, 401, 403, 404) are not. Waits
// ([Client.FollowRun], [Client.WaitForBuild]) poll until their context ends,
// never for a number of turns; a context without deadline gets
// [DefaultWaitTimeout]; when it ends, the error keeps the last real failure.
//
// # Errors
//
// A non-2xx reply is an [*Error] (the type deploy.Error) carrying the status
// and the server's error-code and message; errors.Is matches it against
// [ErrUnauthorized], [ErrNotFound], [ErrConflict] and [ErrBadRequest] (the
// last three are vespa's own sentinels) and errors.As finds the
// *vespa.Error it wraps, as for every package of the SDK. No error, log line or
// String method shows a key, a token or a signature: the types that hold one
// ([Client], [Token], [KeyPair], [DataPlaneOptions], the options) print
// "[redacted]" in its place with every fmt verb (%#v and %x included) and
// in slog records.
package cloud
