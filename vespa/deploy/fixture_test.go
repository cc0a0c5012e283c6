package deploy

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/retries"
)

func testPackage(t *testing.T) *Package {
	t.Helper()
	p, err := NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services/>")}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFixtures_Deploy(t *testing.T) {
	fx := testutil.LoadFixtures(t, "deploy.json")
	for _, c := range []struct {
		name      string
		id        int64
		wantErr   error
		code, msg string
	}{
		{name: "prepareandactivate-multipart-200", id: 2},
		{name: "prepareandactivate-activation-failed-200", id: 3, wantErr: ErrNotActivated, msg: "activation failed: host still booting"},
		{name: "prepareandactivate-bad-zip-400", wantErr: ErrBadRequest, code: "BAD_REQUEST", msg: "services.xml does not exist"},
		{name: "prepareandactivate-lb-not-ready-409", wantErr: ErrConflict, code: "LOAD_BALANCER_NOT_READY", msg: "Unable to create load balancer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fx[c.name]
			var got http.Request
			cs, err := NewConfigServer(testutil.Replay(t, f, &got).URL)
			if err != nil {
				t.Fatal(err)
			}
			s, err := cs.Deploy(t.Context(), testPackage(t), Params{})
			if got.Method != http.MethodPost || got.URL.Path != "/application/v2/tenant/default/prepareandactivate" || got.Header.Get("Content-Type") != "application/zip" {
				t.Errorf("sent %s %s %s", got.Method, got.URL.Path, got.Header.Get("Content-Type"))
			}
			if c.wantErr == nil {
				if err != nil || s.ID != c.id || !s.Activated || s.Actions.Restart == nil {
					t.Errorf("Deploy = %+v, %v", s, err)
				}
				return
			}
			if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Deploy error %v, want %v containing %q", err, c.wantErr, c.msg)
			}
			var e *Error
			if c.code != "" && (!errors.As(err, &e) || e.Code != c.code) {
				t.Errorf("error code of %v, want %s", err, c.code)
			}
			if c.id != 0 && (s == nil || s.ID != c.id || s.Activated) {
				t.Errorf("session %+v", s)
			}
		})
	}
	t.Run("session-id is a string", func(t *testing.T) {
		s, err := decodeSession(fx["session-create-200"].Body())
		if err != nil || s.ID != 2 {
			t.Errorf("decodeSession = %+v, %v", s, err)
		}
		if _, err := decodeSession([]byte(`{"session-id":3}`)); err == nil {
			t.Error("a numeric session-id decoded")
		}
	})
}

func TestFixtures_Activate(t *testing.T) {
	fx := testutil.LoadFixtures(t, "deploy.json")
	fast := WithRetryPolicy(retries.ControlPlane.WithWait(retries.WaitNone()))
	for _, c := range []struct {
		name      string
		id        int64
		code      string
		want      error
		transient bool
	}{
		{name: "activate-retry-ok-200", id: 3},
		{name: "activate-retry-parent-host-409", id: 3, code: "PARENT_HOST_NOT_READY", want: ErrConflict, transient: true},
		{name: "activate-outdated-session-409", id: 4, code: "ACTIVATION_CONFLICT", want: ErrConflict},
		{name: "activate-unknown-session-404", id: 2, code: "NOT_FOUND", want: ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fx[c.name]
			var got http.Request
			cs, err := NewConfigServer(testutil.Replay(t, f, &got).URL, fast)
			if err != nil {
				t.Fatal(err)
			}
			s := &Session{ID: c.id}
			err = cs.Activate(t.Context(), s)
			if got.Method != f.Request.Method || got.URL.Path != strings.Replace(f.Request.Path, "/tenant/test/", "/tenant/default/", 1) {
				t.Errorf("sent %s %s, fixture %s %s", got.Method, got.URL.Path, f.Request.Method, f.Request.Path)
			}
			if c.want == nil {
				if err != nil || !s.Activated || s.Message != "Session 3 for test.default.default activated" {
					t.Errorf("Activate = %v, session %+v", err, s)
				}
				return
			}
			var e *Error
			if !errors.Is(err, c.want) || !errors.As(err, &e) || e.Code != c.code || retries.IsTransientConflict(err) != c.transient {
				t.Errorf("Activate = %v, want %v with code %s (transient %v)", err, c.want, c.code, c.transient)
			}
		})
	}
}
