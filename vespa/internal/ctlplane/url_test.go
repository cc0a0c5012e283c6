package ctlplane

import (
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
)

func TestParseBaseURL_NoUserInfoInErrors(t *testing.T) {
	testutil.RefusedWithoutSecret(t, "hunter2", func(s string) error { _, err := ParseBaseURL(s); return err },
		"https://user:hunter2@cfg.example:19071",
		"https://user:hunter2@cfg.example:19071/?x=1",
		"http://user:hunter2@[::1:19071",
		"ftp://user:hunter2@cfg.example",
		"https://user:hunter2@cfg.example/%zz",
		"https://user:hunter2@cfg.example:19071#frag",
	)
	u, err := ParseBaseURL("http://localhost:19071///")
	if err != nil || u.String() != "http://localhost:19071" {
		t.Errorf("ParseBaseURL = %v, %v", u, err)
	}
}

func FuzzParseBaseURL(f *testing.F) {
	f.Add("https://user:secretpw@cfg.example:19071/")
	f.Add("http://u:secretpw@[::1")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "secretpw") {
			return // the needle must come from the user information only
		}
		_, err := ParseBaseURL("https://u:secretpw@" + s)
		if err != nil && strings.Contains(err.Error(), "secretpw") {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
