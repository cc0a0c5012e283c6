// Package deploy holds Vespa application packages and deploys them to a
// self-hosted Vespa config server, then follows them until they serve.
// Package cloud deploys the same packages to Vespa Cloud.
//
// An application package is a directory, a zip file or an fs.FS with
// services.xml at its root; [NewPackage] and [NewPackageFS] check for it, and
// [Package.WriteZip] zips it deterministically (sorted entries, fixed times
// and modes, no version-control or editor files), streaming:
//
//	pkg, err := deploy.NewPackage("my-app")
//
// A symbolic link in the package is zipped as the file it leads to, as
// Vespa's CLI does, when that file is inside the package; a link that
// resolves outside it (into ~/.ssh, ~/.vespa, ...) or to a directory is an
// error matching [ErrUnsafeLink] that names the link, before anything is
// sent.
//
// To deploy, create a [ConfigServer] and call [ConfigServer.DeployAndWait],
// which uploads the package to /application/v2/tenant/default/prepareandactivate,
// waits for the services to converge on the new config generation and for
// the containers to report "up":
//
//	cs, err := deploy.NewConfigServer("http://localhost:19071")
//	session, err := cs.DeployAndWait(ctx, pkg, deploy.Params{})
//
// The containers it waits for are those the config server reports, at the
// config server's host; when Vespa runs in Docker with its ports mapped
// elsewhere, give the URLs this process reaches in [Params.ContainerURLs],
// and a container that wants a data-plane token or certificate is reached
// with [WithContainerHTTPClient].
//
// # Uploads, retries and waits
//
// The upload is sent exactly once (retries.Upload), as Vespa's CLI sends it:
// when its reply is lost the error matches [ErrOutcomeUnknown] and says how to
// check what happened, rather than making a second session. A package the
// config server prepared but could not activate yet (a host still booting)
// is activated again with [ConfigServer.Activate], which uploads nothing;
// DeployAndWait does so by itself. Its timeout
// parameter, which bounds the config server's prepare and activate, is
// [Params.Timeout] or else the time left on ctx. Reads and polls run under
// retries.ControlPlane: transport errors, 5xx replies and the config
// server's transient 409s (APPLICATION_LOCK_FAILURE, CONFIG_NOT_CONVERGED,
// LOAD_BALANCER_NOT_READY, PARENT_HOST_NOT_READY) are retried; final 4xx
// (400, 401, 403, 404, other 409s) are not. Waits
// ([ConfigServer.WaitForConvergence], [ConfigServer.WaitForHealth]) poll
// until their context ends, never for a number of turns; a context without
// deadline gets [DefaultWaitTimeout]. When the context ends, a wait's error
// keeps the last real failure it saw along with the context's error.
//
// # Errors
//
// A non-2xx reply is an [*Error] carrying the status and the server's
// error-code and message; errors.Is matches it against [ErrUnauthorized]
// (401, 403) and the SDK's sentinels of its status ([ErrNotFound] is
// vespa.ErrNotFound, and so on), and errors.As finds the *vespa.Error it
// wraps, so one test serves every package.
package deploy
