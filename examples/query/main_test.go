package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

func TestRun(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "music", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "year", Type: "int"},
	}}))
	for id, fields := range map[string]string{
		"id:ns:music::a": `{"title":"A Head Full of Dreams","year":2015}`,
		"id:ns:music::b": `{"title":"Hardwired","year":2016}`,
	} {
		if err := srv.PutDocument(id, json.RawMessage(fields)); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name      string
		args      []string
		code      int
		hits      int
		stderrHas string
	}{
		{"hits as json", []string{"-yql", "select * from music where true", "-hits", "1"}, 0, 1, ""},
		{"param", []string{"-yql", "select * from music where year = 2016", "-param", "ranking.profile=default", "-get"}, 0, 1, ""},
		{"query error", []string{"-yql", "select * from music where"}, 1, 0, "invalid query parameter"},
		{"usage", []string{}, 2, 0, "usage:"},
		{"bad param", []string{"-yql", "x", "-param", "nokey"}, 2, 0, "key=value"},
		{"help", []string{"-h"}, 0, 0, "usage:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"-endpoint", srv.URL()}, tc.args...)
			if code := run(context.Background(), args, &stdout, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if stdout.Len() == 0 {
				lines = nil
			}
			if len(lines) != tc.hits {
				t.Errorf("stdout %q, want %d hits", stdout.String(), tc.hits)
			}
			for _, l := range lines {
				var h struct {
					ID     string          `json:"id"`
					Fields json.RawMessage `json:"fields"`
				}
				if err := json.Unmarshal([]byte(l), &h); err != nil || h.ID == "" || len(h.Fields) == 0 {
					t.Errorf("line %q: %v", l, err)
				}
			}
			if !strings.Contains(stderr.String(), tc.stderrHas) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tc.stderrHas)
			}
		})
	}
}

func TestRun_Credentials(t *testing.T) {
	const secret = "s3cret-data-plane-token"
	srv := vespatest.NewTestServer(t, vespatest.WithToken(secret))
	if err := srv.PutDocument("id:ns:music::a", json.RawMessage(`{"title":"Hardwired"}`)); err != nil {
		t.Fatal(err)
	}
	args := []string{"-endpoint", srv.URL(), "-yql", "select * from music where true"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"no token", nil, nil, 1},
		{"-token", nil, []string{"-token", secret}, 0},
		{"VESPA_TOKEN", map[string]string{"VESPA_TOKEN": secret}, nil, 0},
		{"-cert without -key", nil, []string{"-token", secret, "-cert", "c.pem"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []string{"VESPA_TOKEN", "VESPA_CLI_DATA_PLANE_TOKEN", "VESPA_CERT_FILE", "VESPA_CERT", "VESPA_KEY_FILE", "VESPA_KEY", "VESPA_CA_FILE", "VESPA_CA"} {
				t.Setenv(n, tc.env[n])
			}
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), append(append([]string{}, args...), tc.args...), &stdout, &stderr); code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			if strings.Contains(stderr.String(), secret) {
				t.Errorf("the token is on stderr: %s", stderr.String())
			}
		})
	}
	t.Run("-h does not print the token", func(t *testing.T) {
		t.Setenv("VESPA_TOKEN", secret)
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"-h"}, &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), secret) ||
			!strings.Contains(stderr.String(), "-ca-cert") {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	})
}
