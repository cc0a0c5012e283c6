// Package cloud is govespa's control plane: it deploys Vespa application
// packages, to a self-hosted config server or to Vespa Cloud, and follows them
// until they serve.
//
// An application package is a directory, a zip file or an fs.FS with
// services.xml at its root; [NewPackage] and [NewPackageFS] check for it, and
// [Package.WriteZip] zips it deterministically (sorted entries, fixed times
// and modes, no version-control or editor files), streaming:
//
//	pkg, err := cloud.NewPackage("my-app")
//
// To deploy to a self-hosted Vespa, create a [ConfigServer] and call
// [ConfigServer.DeployAndWait], which uploads the package to
// /application/v2/tenant/default/prepareandactivate, waits for the services
// to converge on the new config generation and for the containers to report
// "up":
//
//	cs, err := cloud.NewConfigServer("http://localhost:19071")
//	session, err := cs.DeployAndWait(ctx, pkg, cloud.ConfigDeployParams{})
//
// The containers it waits for are those the config server reports, at the
// config server's host; when Vespa runs in Docker with its ports mapped
// elsewhere, give the URLs this process reaches in
// [ConfigDeployParams.ContainerURLs], and a container that wants a
// data-plane token or certificate is reached with [WithContainerHTTPClient].
//
// To script Vespa Cloud, create a [Client] for a tenant, application and
// instance with an API key ([WithAPIKeyFile]) or an access token
// ([WithAccessToken]). Requests with an API key are signed as Vespa Cloud
// verifies them (ECDSA P-256 over method, URL, timestamp and body hash), again
// for every attempt. Deploy to a dev or perf zone and follow the run's log:
//
//	c, err := cloud.NewClient(cloud.ApplicationID{Tenant: "t", Application: "a"},
//		cloud.WithAPIKeyFile("t.api-key.pem"))
//	run, err := c.Deploy(ctx, cloud.DefaultDevZone, pkg, cloud.DeployOptions{})
//	_, err = c.FollowRun(ctx, run, func(e cloud.LogEntry) { fmt.Println(e.Message) })
//
// A run that ends other than in success is a [*RunError]. Then
// [Client.Endpoints] lists the deployment's endpoints and
// [Client.DataPlaneClient] returns a ready *vespa.Client for one of them.
// [Client.Submit] and [Client.WaitForBuild] take a package to production;
// [Client.Delete] removes a dev deployment; [GenerateKeyPair] and
// [KeyPair.Save] make the data-plane certificate that
// [Package.WithClientCertificate] adds to a package, saved where Vespa's CLI
// keeps it ([CredentialsDir]).
//
// # Retries and waits
//
// Every call runs under a retry policy, retries.ControlPlane by default:
// transport errors and 5xx replies are retried, final 4xx (such as 400, 401,
// 403, 404, 409) are not. Waits ([Client.FollowRun], [Client.WaitForBuild],
// [ConfigServer.WaitForConvergence], [ConfigServer.WaitForHealth]) poll until
// their context ends, never for a number of turns; a context without deadline
// gets [DefaultWaitTimeout].
//
// # Errors
//
// A non-2xx reply is an [*Error] carrying the status and the server's
// error-code and message; errors.Is matches it against [ErrUnauthorized],
// [ErrNotFound], [ErrConflict] and [ErrBadRequest]. No error, log line or
// String method shows a key, a token or a signature: the types that hold one
// ([Client], [Token], [KeyPair], [DataPlaneOptions], the options) print
// "[redacted]" in its place with every fmt verb (%#v and %x included) and
// in slog records.
package cloud
