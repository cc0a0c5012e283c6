package ctlplane

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// testConfig stands for a package's config: the settings and one field of
// its own.
type testConfig struct {
	Settings
	secret string
}

type testOption = Option[testConfig]

// sealed stands for a package's sealed Option interface, whose nil value
// ApplyOptions rejects.
type sealed interface{ Apply(*testConfig) error }

func TestApplyOptions_ErrorsNameTheOption(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []sealed
		want string
	}{
		{"nil option", []sealed{nil}, "x: option 0 is nil"},
		{"nil client", []sealed{testOption{Name: "WithHTTPClient", Set: func(c *testConfig) error { return c.SetHTTPClient(nil) }}}, "x: WithHTTPClient: nil client"},
		{"nil logger", []sealed{testOption{Name: "WithLogger", Set: func(c *testConfig) error { return c.SetLogger(nil) }}}, "x: WithLogger: nil logger"},
		{"zero poll", []sealed{testOption{Name: "WithPollInterval", Set: func(c *testConfig) error { return c.SetPollInterval(0) }}}, "x: WithPollInterval: 0s is not positive"},
		{"bad policy", []sealed{testOption{Name: "WithRetryPolicy", Set: func(c *testConfig) error { return c.SetRetryPolicy(retries.ControlPlane.WithMaxAttempts(0)) }}}, "x: WithRetryPolicy: retries: policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig{Settings: NewSettings(time.Second, "ua")}
			err := ApplyOptions("x", tc.opts, func(o sealed) error { return o.Apply(&c) })
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to start with %q", err, tc.want)
			}
		})
	}
}

func TestApplyOptions_SetsAndCompletes(t *testing.T) {
	hc := &http.Client{}
	l := slog.New(slog.DiscardHandler)
	c := testConfig{Settings: NewSettings(time.Second, "ua")}
	if c.Policy.Err() != nil || c.Logger == nil || c.Poll != time.Second || c.UserAgent != "ua" || c.HTTPClient != nil {
		t.Fatalf("defaults = %+v", c.Settings)
	}
	opts := []testOption{
		{Name: "WithHTTPClient", Set: func(c *testConfig) error { return c.SetHTTPClient(hc) }},
		{Name: "WithLogger", Set: func(c *testConfig) error { return c.SetLogger(l) }},
		{Name: "WithPollInterval", Set: func(c *testConfig) error { return c.SetPollInterval(time.Minute) }},
		{Name: "WithUserAgent", Set: func(c *testConfig) error { return c.SetUserAgent("other") }},
		{Name: "WithRetryPolicy", Set: func(c *testConfig) error { return c.SetRetryPolicy(retries.Upload) }},
	}
	if err := ApplyOptions("x", opts, func(o testOption) error { return o.Apply(&c) }); err != nil {
		t.Fatal(err)
	}
	c.Complete()
	if c.HTTPClient != hc || c.Logger != l || c.Poll != time.Minute || c.UserAgent != "other" || c.Policy.MaxAttempts() != retries.Upload.MaxAttempts() {
		t.Errorf("settings = %+v", c.Settings)
	}
	var d testConfig
	d.Complete()
	if d.HTTPClient == nil || d.HTTPClient.Transport == http.DefaultTransport {
		t.Errorf("Complete gave %+v, want a client over a clone of http.DefaultTransport", d.HTTPClient)
	}
}

func TestOption_PrintsOnlyItsName(t *testing.T) {
	o := testOption{Pkg: "x", Name: "WithSecret", Set: func(c *testConfig) error { c.secret = "hunter2"; return nil }}
	for verb, want := range map[string]string{"%v": "x.WithSecret", "%+v": "x.WithSecret", "%#v": "x.WithSecret", "%s": "x.WithSecret", "%q": `"x.WithSecret"`} {
		if got := fmt.Sprintf(verb, o); got != want {
			t.Errorf("%s prints %q, want %q", verb, got, want)
		}
	}
}
