package vespatest_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, text := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func postDeploy(t *testing.T, s *vespatest.Server, pkg []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.ConfigServerURL()+"/application/v2/tenant/default/prepareandactivate", bytes.NewReader(pkg))
	req.Header.Set("Content-Type", "application/zip")
	st, _, body := func() (int, http.Header, string) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, resp.Header, b.String()
	}()
	return st, body
}

// A package with a field of a type no schema declares does not build:
// ConvertParsedTypes.resolveFromContext's "unknown type named ..." wrapped
// by ModelsBuilder as InvalidApplicationException ("Invalid application"),
// which HttpHandler answers 400 INVALID_APPLICATION_PACKAGE (configserver and
// config-model at 1f79d33dd014). Before, the package activated. A declared
// struct is a known type.
func TestDeploy_unknownFieldTypeRefused(t *testing.T) {
	s := vespatest.NewTestServer(t)
	bad := zipOf(t, map[string]string{"services.xml": servicesXML,
		"schemas/music.sd": "schema music {\n document music {\n  field title type nosuchtype { indexing: summary }\n }\n}\n"})
	st, body := postDeploy(t, s, bad)
	if st != 400 || body != `{"error-code":"INVALID_APPLICATION_PACKAGE","message":"Invalid application: unknown type named 'nosuchtype' in context document 'music'"}` {
		t.Errorf("deploy with an unknown field type: %d %s", st, body)
	}
	good := zipOf(t, map[string]string{"services.xml": servicesXML,
		"schemas/music.sd": "schema music {\n document music {\n  struct person { field name type string {} }\n  field who type array<person> { indexing: summary }\n }\n}\n"})
	if st, body := postDeploy(t, s, good); st != 200 {
		t.Errorf("deploy with a struct field: %d %s", st, body)
	}
}

// FaultInvalidApplicationPackage makes a deploy fail as the config server
// refuses a package whose models do not build.
func TestDeploy_invalidApplicationPackageFault(t *testing.T) {
	s := vespatest.NewTestServer(t)
	if err := s.AddFault(vespatest.FaultRule{Op: vespatest.OpDeploy, Rate: 1, Times: 1,
		Fault: vespatest.FaultInvalidApplicationPackage("schema 'music' error: bad")}); err != nil {
		t.Fatal(err)
	}
	st, body := postDeploy(t, s, zipPackage(t))
	if st != 400 || !strings.Contains(body, `"error-code":"INVALID_APPLICATION_PACKAGE","message":"Invalid application: schema 'music' error: bad"`) {
		t.Errorf("faulted deploy: %d %s", st, body)
	}
	if st, body := postDeploy(t, s, zipPackage(t)); st != 200 {
		t.Errorf("second deploy: %d %s", st, body)
	}
}
