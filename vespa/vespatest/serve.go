package vespatest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serveFlagName is the flag that keeps a test's emulator up for a person to
// poke, as -httptest.serve does for httptest.
const serveFlagName = "vespatest.serve"

// serveAddr is the value of -vespatest.serve: empty unless the flag was given
// to a test binary.
var serveAddr string

func init() {
	if registerServeFlag(testing.Testing(), os.Args) {
		flag.StringVar(&serveAddr, serveFlagName, "",
			"if non-empty, vespatest.NewServer and NewTestServer serve on this address, e.g. 127.0.0.1:8080, and block")
	}
}

// registerServeFlag reports whether -vespatest.serve is to be registered: only
// in a binary built by go test, and only when the flag is on its command line
// (as httptest does for -httptest.serve), so that a program importing the
// package, or a test run without it, sees no new flag.
func registerServeFlag(testBinary bool, args []string) bool {
	if !testBinary {
		return false
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-"+serveFlagName+"=") || strings.HasPrefix(a, "--"+serveFlagName+"=") {
			return true
		}
	}
	return false
}

// serveForever prints where the emulator serves, with commands to point
// Vespa's CLI and curl at it, and never returns: the process keeps the server
// up until it is interrupted (or its test times out).
func serveForever(s *Server) {
	var files *pemFiles
	if s.creds != nil {
		f, err := writePEMFiles(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "vespatest: cannot write the TLS certificates for -%s: %v\n", serveFlagName, err)
		} else {
			files = f
		}
	}
	// One write for the whole message: a reader that sees the banner (such
	// as TestServeFlag) then has the hints too, even if it stops us at once.
	var msg bytes.Buffer
	writeServeHint(&msg, s, files)
	_, _ = os.Stderr.Write(msg.Bytes()) // nowhere better to report a failed write to stderr
	select {}
}

// pemFiles are the paths of a TLS server's CA certificate and of a client
// certificate and key it accepts, written for tools outside the test.
type pemFiles struct{ ca, cert, key string }

// writePEMFiles writes the server's CA and client credentials to a new
// temporary directory, readable by the user only. They are the emulator's
// throwaway credentials, made for this process.
func writePEMFiles(s *Server) (*pemFiles, error) {
	dir, err := os.MkdirTemp("", "vespatest-serve-")
	if err != nil {
		return nil, err
	}
	f := &pemFiles{
		ca:   filepath.Join(dir, "ca.pem"),
		cert: filepath.Join(dir, "client.pem"),
		key:  filepath.Join(dir, "client-key.pem"),
	}
	certPEM, keyPEM := s.ClientCertificatePEM()
	for path, data := range map[string][]byte{f.ca: s.CACertificatePEM(), f.cert: certPEM, f.key: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// writeServeHint writes the -vespatest.serve banner for s to w; files, if not
// nil, hold the TLS credentials to name in the commands.
func writeServeHint(w io.Writer, s *Server, files *pemFiles) {
	curl := "curl"
	switch {
	case files != nil:
		curl += " --cacert " + files.ca
		if s.cfg.mtls {
			curl += " --cert " + files.cert + " --key " + files.key
		}
	case s.creds != nil:
		curl += " -k" // no CA file to trust: skip verification of the emulator's own certificate
	}
	if s.cfg.token != "" {
		curl += ` -H "Authorization: Bearer $TOKEN"` // the token itself is never printed
	}
	fmt.Fprintf(w, "vespatest: serving on %s (-%s); interrupt to stop\n", s.url, serveFlagName)
	fmt.Fprintf(w, "vespatest: point Vespa's CLI at it:\n")
	if files != nil {
		fmt.Fprintf(w, "\texport VESPA_CLI_DATA_PLANE_CA_CERT_FILE=%s\n", files.ca)
		fmt.Fprintf(w, "\texport VESPA_CLI_DATA_PLANE_CERT_FILE=%s\n", files.cert)
		fmt.Fprintf(w, "\texport VESPA_CLI_DATA_PLANE_KEY_FILE=%s\n", files.key)
	}
	fmt.Fprintf(w, "\tvespa config set target %s\n", s.url)
	fmt.Fprintf(w, "\tvespa query 'yql=select * from sources * where true'\n")
	fmt.Fprintf(w, "vespatest: or curl it:\n")
	fmt.Fprintf(w, "\t%s %s/state/v1/health\n", curl, s.url)
	fmt.Fprintf(w, "\t%s '%s/document/v1/?cluster=%s'\n", curl, s.url, s.app.Load().ClusterNames()[0])
	fmt.Fprintf(w, "\t%s '%s/search/?yql=select%%20*%%20from%%20sources%%20*%%20where%%20true'\n", curl, s.url)
	s.cfgMu.Lock()
	cs := s.cfgServer
	s.cfgMu.Unlock()
	if cs != nil {
		fmt.Fprintf(w, "vespatest: config server (deploy) on %s\n", cs.URL)
	}
}
