package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/internal/testutil"
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
		{"hits as json", []string{"-yql", "select * from music where true", "-hits", "1"}, 0, 1, "query: 1 hits of 2 matches"},
		{"no hits says so", []string{"-yql", "select * from music where year = 1800"}, 0, 0, "query: 0 hits of 0 matches"},
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
	testutil.CheckCredentials(t, run, args, credflags.EnvNames(), secret, []testutil.CredentialCase{
		{Name: "no token", Code: 1},
		{Name: "-token", Args: []string{"-token", secret}, Code: 0},
		{Name: "VESPA_TOKEN", Env: map[string]string{"VESPA_TOKEN": secret}, Code: 0},
		{Name: "-cert without -key", Args: []string{"-token", secret, "-cert", "c.pem"}, Code: 2},
	})
}
