package ctlplane

import "testing"

func FuzzNewError(f *testing.F) {
	f.Add(400, []byte(`{"error-code":"BAD_REQUEST","message":"m"}`))
	f.Add(403, []byte(`{"code":403,"message":"Access denied"}`))
	f.Add(502, []byte(`<html>bad gateway</html>`))
	f.Fuzz(func(t *testing.T, status int, b []byte) {
		e := ParseReply("cloud", "op", "GET", "/p", status, b, 0, false)
		if e.Status != status || e.Err.StatusCode() != status || e.Text() == "" || len(e.Message) > maxErrorBody+len("…") {
			t.Fatalf("error %+v", e)
		}
	})
}
