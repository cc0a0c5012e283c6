package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest"
)

// This file points Vespa's own command-line client (vespa feed, vespa
// document, vespa query, vespa visit) at the emulator, as a user would with
// --target, and checks that what it prints and what the emulator stores are
// what they would be against a real container. The expected outputs come
// from the CLI's source (client/go/internal/cli/cmd in vespa-engine/vespa):
// how each command formats its results and its errors, and its exit codes.
//
// The CLI is not part of this repository. The test runs the binary named by
// GOVESPA_VESPA_CLI, or else "vespa" found on PATH, and skips without one.

// cliBinaryEnv names the environment variable that points at a Vespa CLI
// binary, to use instead of "vespa" on PATH.
const cliBinaryEnv = "GOVESPA_VESPA_CLI"

const (
	// cliCommandTimeout bounds every run of the CLI: a hung command fails
	// the test instead of hanging it.
	cliCommandTimeout = 2 * time.Minute
	// cliSongs is the number of songs the feed file puts.
	cliSongs = 500
	// cliNamespace is the namespace of every document ID of the test.
	cliNamespace = "mynamespace"
	// cliCluster is the content cluster of testdata/app.
	cliCluster = "music"
	// cliEmbeddingEvery puts an embedding on every so many songs: a put
	// that carries one is over 512 bytes, so the CLI sends it gzipped.
	cliEmbeddingEvery = 25
	// cliEmbeddingDims is the dimension of the music schema's embedding.
	cliEmbeddingDims = 384
)

// cliWords are the colours the song titles end in, for queries with a
// known number of hits.
var cliWords = []string{"crimson", "amber", "teal", "ivory", "cobalt", "olive", "scarlet"}

// cliFields are a document's fields as encoding/json decodes them (numbers
// are float64): the emulator's store, the CLI's output and the model of
// what was fed are all compared in this form.
type cliFields = map[string]any

// cliModel is what the store must hold: the fields of every document that
// exists, by full document ID.
type cliModel map[string]cliFields

// cliID returns the full document ID of a music document.
func cliID(name string) string { return "id:" + cliNamespace + ":music::" + name }

// cliSongName returns the user-specified part of song i's ID.
func cliSongName(i int) string { return fmt.Sprintf("song-%03d", i) }

// cliNormalize returns v as encoding/json decodes its encoding, so that
// values built in Go compare equal to values read from JSON.
func cliNormalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return out
}

// cliEmbedding returns song i's embedding: cells that are multiples of 1/4,
// exact in float32, so that they read back unchanged.
func cliEmbedding(i int) []float64 {
	v := make([]float64, cliEmbeddingDims)
	for j := range v {
		v[j] = float64((i+j)%16) / 4
	}
	return v
}

// cliFeedFile is a generated feed and the store it must leave behind.
type cliFeedFile struct {
	lines []string      // JSONL operations, in feed order
	model cliModel      // the store after the feed
	codes map[int]int64 // the HTTP status of each operation, counted
	ops   int64         // the number of operations
}

// cliBuildFeed generates the feed of the test: cliSongs puts (some with an
// embedding), increments and array adds on every tenth song, an update that
// creates its document, a conditional update that matches and one that does
// not (412), and two removes, one of a document that never existed.
func cliBuildFeed(t *testing.T) cliFeedFile {
	t.Helper()
	f := cliFeedFile{model: cliModel{}, codes: map[int]int64{}}
	add := func(op map[string]any, status int) {
		t.Helper()
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatalf("encoding a feed operation: %v", err)
		}
		f.lines = append(f.lines, string(b))
		f.codes[status]++
		f.ops++
	}
	for i := range cliSongs {
		fields := map[string]any{
			"title":      fmt.Sprintf("Song %d %s", i, cliWords[i%len(cliWords)]),
			"year":       1960 + i%50,
			"popularity": i,
			"tags":       []string{fmt.Sprintf("t%d", i%3), "all"},
		}
		want := maps.Clone(fields)
		if i%cliEmbeddingEvery == 0 {
			fields["embedding"] = map[string]any{"values": cliEmbedding(i)}
			want["embedding"] = map[string]any{"type": "tensor<float>(x[384])", "values": cliEmbedding(i)}
		}
		id := cliID(cliSongName(i))
		add(map[string]any{"put": id, "fields": fields}, 200)
		f.model[id] = cliNormalize(t, want).(cliFields)
	}
	for i := 0; i < cliSongs; i += 10 {
		id := cliID(cliSongName(i))
		add(map[string]any{"update": id, "fields": map[string]any{
			"popularity": map[string]any{"increment": 1000},
			"tags":       map[string]any{"add": []string{"updated"}},
		}}, 200)
		f.model[id]["popularity"] = float64(i + 1000)
		f.model[id]["tags"] = append(f.model[id]["tags"].([]any), "updated")
	}
	created := cliID("created-by-update")
	add(map[string]any{"update": created, "create": true, "fields": map[string]any{
		"title": map[string]any{"assign": "Created by an update crimson"},
		"year":  map[string]any{"assign": 2024},
	}}, 200)
	f.model[created] = cliFields{"title": "Created by an update crimson", "year": float64(2024)}

	kept := cliID(cliSongName(1))
	add(map[string]any{"update": kept, "condition": "music.popularity==-1", "fields": map[string]any{
		"title": map[string]any{"assign": "never written"},
	}}, 412)
	changed := cliID(cliSongName(2))
	add(map[string]any{"update": changed, "condition": "music.year==1962", "fields": map[string]any{
		"title": map[string]any{"assign": "Song 2 conditionally retitled amber"},
	}}, 200)
	f.model[changed]["title"] = "Song 2 conditionally retitled amber"

	removed := cliID(cliSongName(cliSongs - 1))
	add(map[string]any{"remove": removed}, 200)
	delete(f.model, removed)
	add(map[string]any{"remove": cliID("never-fed")}, 200)
	return f
}

// cliRunner runs the Vespa CLI against one emulator, with a configuration
// directory of its own.
type cliRunner struct {
	bin    string
	dir    string   // the working directory and VESPA_CLI_HOME
	env    []string // the environment of every run
	target string   // the emulator's URL, given as --target
}

// cliResult is what one run of the CLI printed, and its exit code.
type cliResult struct {
	stdout string
	stderr string
	code   int
}

// cliFindBinary returns the Vespa CLI to run: the file GOVESPA_VESPA_CLI
// names, or "vespa" on PATH. It skips t when neither is there; a
// GOVESPA_VESPA_CLI that names no executable fails t, as it was asked for.
func cliFindBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(cliBinaryEnv); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("%s=%q: %v", cliBinaryEnv, p, err)
		}
		return path
	}
	path, err := exec.LookPath("vespa")
	if err != nil {
		t.Skipf("Vespa's CLI is not installed: no \"vespa\" on PATH and %s is not set (%v)", cliBinaryEnv, err)
	}
	return path
}

// cliNewRunner returns a runner of bin against target whose configuration
// lives in a fresh temporary directory: the CLI never reads or writes the
// user's own (VESPA_CLI_HOME, VESPA_CLI_CACHE_DIR), and the user's VESPA_CLI_*
// settings (a data-plane token, certificates) are left out.
func cliNewRunner(t *testing.T, bin, target string) *cliRunner {
	t.Helper()
	dir := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VESPA_CLI_") && !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"VESPA_CLI_HOME="+filepath.Join(dir, "home"),
		"VESPA_CLI_CACHE_DIR="+filepath.Join(dir, "cache"),
		"NO_COLOR=1",
	)
	return &cliRunner{bin: bin, dir: dir, env: env, target: target}
}

// run runs the CLI with args and --target, under cliCommandTimeout. A
// command that cannot start or does not end in time fails t; any exit code
// is returned.
func (r *cliRunner) run(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cliCommandTimeout)
	defer cancel()
	args = append(slices.Clone(args), "--target", r.target)
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("vespa %s: no end within %v (%v)\nstderr:\n%s", cliShow(args), cliCommandTimeout, err, res.stderr)
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("vespa %s: %v", cliShow(args), err)
	}
	t.Logf("vespa %s: exit %d, %d bytes out, %d bytes err", cliShow(args), res.code, len(res.stdout), len(res.stderr))
	return res
}

// mustRun runs the CLI and fails t unless it exits 0.
func (r *cliRunner) mustRun(t *testing.T, args ...string) cliResult {
	t.Helper()
	res := r.run(t, args...)
	if res.code != 0 {
		t.Fatalf("vespa %s: exit %d\nstdout:\n%s\nstderr:\n%s", cliShow(args), res.code, cliTrim(res.stdout), res.stderr)
	}
	return res
}

// cliShow renders a command line for messages, long arguments shortened.
func cliShow(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:77] + "..."
		}
		if strings.ContainsAny(a, " \"{") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// cliTrim shortens a long output for a failure message.
func cliTrim(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "\n[...]"
	}
	return s
}

// cliWriteFile writes data to a new file in the runner's directory and
// returns its path.
func (r *cliRunner) cliWriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(r.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// cliDecodeFields decodes a JSON object of fields.
func cliDecodeFields(raw []byte) (cliFields, error) {
	var f cliFields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return f, nil
}

// cliCheckFields reports on t where got differs from want.
func cliCheckFields(t *testing.T, what string, got, want cliFields) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: field %q missing, want %s", what, k, cliShort(want[k]))
		} else if !reflect.DeepEqual(g, want[k]) {
			t.Errorf("%s: field %q = %s, want %s", what, k, cliShort(g), cliShort(want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected field %q = %s", what, k, cliShort(got[k]))
		}
	}
}

// cliShort renders a value for a message, shortened.
func cliShort(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// cliCheckStore checks that the emulator's store holds exactly model.
func cliCheckStore(t *testing.T, srv *vespatest.Server, model cliModel) {
	t.Helper()
	if got := srv.DocumentCount(); got != len(model) {
		t.Errorf("the emulator stores %d documents, want %d", got, len(model))
	}
	for _, id := range slices.Sorted(maps.Keys(model)) {
		raw, ok := srv.Document(id)
		if !ok {
			t.Errorf("the emulator does not store %s", id)
			continue
		}
		got, err := cliDecodeFields(raw)
		if err != nil {
			t.Errorf("stored fields of %s: %v", id, err)
			continue
		}
		cliCheckFields(t, "stored "+id, got, model[id])
	}
}

// cliFeedSummary is the part of the JSON summary vespa feed prints that the
// test checks.
type cliFeedSummary struct {
	Operations     int64           `json:"feeder.operation.count"`
	OK             int64           `json:"feeder.ok.count"`
	Errors         int64           `json:"feeder.error.count"`
	Inflight       int64           `json:"feeder.inflight.count"`
	Requests       int64           `json:"http.request.count"`
	Exceptions     int64           `json:"http.exception.count"`
	Responses      int64           `json:"http.response.count"`
	ResponseErrors int64           `json:"http.response.error.count"`
	Codes          map[int]int64   `json:"http.response.code.counts"`
	Seconds        json.RawMessage `json:"feeder.seconds"`
}

// cliFeed runs vespa feed on path and checks its summary: codes counts the
// expected HTTP status of every operation, none retried.
func cliFeed(t *testing.T, r *cliRunner, path string, ops int64, codes map[int]int64) {
	t.Helper()
	res := r.mustRun(t, "feed", path)
	var sum cliFeedSummary
	if err := json.Unmarshal([]byte(res.stdout), &sum); err != nil {
		t.Fatalf("the feed summary is not JSON: %v\n%s", err, res.stdout)
	}
	t.Logf("feed summary: %d operations in %s s, codes %v", sum.Operations, sum.Seconds, sum.Codes)
	if sum.Operations != ops {
		t.Errorf("feeder.operation.count = %d, want %d", sum.Operations, ops)
	}
	if sum.OK != codes[200] {
		t.Errorf("feeder.ok.count = %d, want %d (the 200s)", sum.OK, codes[200])
	}
	if sum.Errors != 0 || sum.Exceptions != 0 {
		t.Errorf("feeder.error.count = %d, http.exception.count = %d, want 0", sum.Errors, sum.Exceptions)
	}
	if sum.Inflight != 0 {
		t.Errorf("feeder.inflight.count = %d after the feed, want 0", sum.Inflight)
	}
	if !maps.Equal(sum.Codes, codes) {
		t.Errorf("http.response.code.counts = %v, want %v", sum.Codes, codes)
	}
	if sum.Requests != ops || sum.Responses != ops {
		t.Errorf("http.request.count = %d, http.response.count = %d, want %d each (no retries)", sum.Requests, sum.Responses, ops)
	}
	if want := ops - codes[200]; sum.ResponseErrors != want {
		t.Errorf("http.response.error.count = %d, want %d", sum.ResponseErrors, want)
	}
	if strings.TrimSpace(res.stderr) != "" {
		t.Errorf("vespa feed printed on stderr:\n%s", cliTrim(res.stderr))
	}
}

// cliVisitedDoc is one document as vespa visit prints it.
type cliVisitedDoc struct {
	ID     string          `json:"id"`
	Fields json.RawMessage `json:"fields"`
}

// cliParseLines parses vespa visit's JSONL output.
func cliParseLines(t *testing.T, out string) []cliVisitedDoc {
	t.Helper()
	var docs []cliVisitedDoc
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var d cliVisitedDoc
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("vespa visit printed a line that is not a document: %v\n%s", err, cliTrim(string(line)))
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// cliErrorsCapped reports the first five of errs, and how many there were
// in all (documents that "were ...") when there were more.
func cliErrorsCapped(t *testing.T, what string, errs []string, were string) {
	t.Helper()
	for i, e := range errs {
		if i == 5 {
			t.Errorf("%s: %d documents in all %s", what, len(errs), were)
			return
		}
		t.Errorf("%s: %s", what, e)
	}
}

// cliCheckVisit checks that docs holds every document of want exactly once
// and nothing else, with want's fields, or only the fields named in only.
func cliCheckVisit(t *testing.T, what string, docs []cliVisitedDoc, want cliModel, only ...string) {
	t.Helper()
	seen := map[string]int{}
	for _, d := range docs {
		seen[d.ID]++
		if seen[d.ID] > 1 {
			continue
		}
		w, ok := want[d.ID]
		if !ok {
			t.Errorf("%s: %s was visited, but it is not in the selection", what, d.ID)
			continue
		}
		got, err := cliDecodeFields(d.Fields)
		if err != nil {
			t.Errorf("%s: fields of %s: %v", what, d.ID, err)
			continue
		}
		if len(only) > 0 {
			w = cliFields{}
			for _, k := range only {
				if v, ok := want[d.ID][k]; ok {
					w[k] = v
				}
			}
		}
		cliCheckFields(t, what+": "+d.ID, got, w)
	}
	var dups, missing []string
	for id, n := range seen {
		if n > 1 {
			dups = append(dups, fmt.Sprintf("%s was visited %d times, want once", id, n))
		}
	}
	for id := range want {
		if seen[id] == 0 {
			missing = append(missing, id+" was not visited")
		}
	}
	cliErrorsCapped(t, what, dups, "were visited more than once")
	cliErrorsCapped(t, what, missing, "were not visited")
	if len(docs) != len(want) {
		t.Errorf("%s: %d documents printed, want %d", what, len(docs), len(want))
	}
}

// cliNotFoundStderr is what vespa document get prints on stderr for a
// document that does not exist, given Vespa's 404 body for it: {"pathId",
// "id"}, no message. The CLI prints "Error: Invalid document operation:
// Status 404", then the body indented by four spaces (document.go,
// operationResult and printResult, and ioutil.ReaderToJSON).
func cliNotFoundStderr(t *testing.T, name string) string {
	t.Helper()
	body := fmt.Sprintf(`{"pathId":"/document/v1/%s/music/docid/%s","id":"%s"}`, cliNamespace, name, cliID(name))
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(body), "", "    "); err != nil {
		t.Fatal(err)
	}
	return "Error: Invalid document operation: Status 404\n" + pretty.String() + "\n"
}

// cliGotDocument is one document as vespa document get prints it: the
// /document/v1 response body.
type cliGotDocument struct {
	PathID string          `json:"pathId"`
	ID     string          `json:"id"`
	Fields json.RawMessage `json:"fields"`
}

// cliGet runs vespa document get on ids, which must all exist, and checks
// the printed documents against model.
func cliGet(t *testing.T, r *cliRunner, model cliModel, ids ...string) {
	t.Helper()
	res := r.mustRun(t, append([]string{"document", "get"}, ids...)...)
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	for _, id := range ids {
		var got cliGotDocument
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("vespa document get: reading the document %s: %v\n%s", id, err, cliTrim(res.stdout))
		}
		if got.ID != id {
			t.Errorf("vespa document get printed id %q, want %q", got.ID, id)
		}
		name := id[strings.LastIndex(id, "::")+2:]
		if want := "/document/v1/" + cliNamespace + "/music/docid/" + name; got.PathID != want {
			t.Errorf("vespa document get %s printed pathId %q, want %q", id, got.PathID, want)
		}
		fields, err := cliDecodeFields(got.Fields)
		if err != nil {
			t.Errorf("vespa document get %s: fields: %v", id, err)
			continue
		}
		cliCheckFields(t, "vespa document get "+id, fields, model[id])
	}
	if dec.More() {
		t.Errorf("vespa document get printed more than %d documents:\n%s", len(ids), cliTrim(res.stdout))
	}
}

// cliCheckConditionFailed checks a single-document command whose condition
// did not match: exit 1 and "Error: Invalid document operation: Status 412"
// on stderr, with no body after it. The CLI keeps a response body only for
// the outcomes it counts as failures, and it counts 412 (like 404) as a
// final, successful outcome (document.Result.Success), so Vespa's message is
// never printed for a 412.
func cliCheckConditionFailed(t *testing.T, res cliResult) {
	t.Helper()
	if res.code != 1 {
		t.Errorf("exit code %d, want 1 (condition not met)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if res.stdout != "" {
		t.Errorf("stdout = %q, want nothing", res.stdout)
	}
	if want := "Error: Invalid document operation: Status 412\n"; res.stderr != want {
		t.Errorf("stderr = %q, want %q", res.stderr, want)
	}
}

// cliQueryResult is the part of a /search/ result the test checks.
type cliQueryResult struct {
	Root struct {
		ID     string `json:"id"`
		Fields struct {
			TotalCount int `json:"totalCount"`
		} `json:"fields"`
		Children []struct {
			ID     string    `json:"id"`
			Source string    `json:"source"`
			Fields cliFields `json:"fields"`
		} `json:"children"`
		Errors []struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"root"`
}

// cliTitleHas reports whether a title holds word as a token, as the
// title index matches it.
func cliTitleHas(title any, word string) bool {
	s, _ := title.(string)
	return slices.Contains(strings.Fields(strings.ToLower(s)), word)
}

// TestVespaCLI runs Vespa's own CLI against the emulator started with the
// music application: a feed, single-document operations with their
// failures, queries and visits (whole, in slices, as a feed), each output
// checked as the CLI prints it for a real container, and the emulator's
// store compared with what was fed. It skips without the CLI.
func TestVespaCLI(t *testing.T) {
	bin := cliFindBinary(t)
	srv := vespatest.NewTestServer(t, vespatest.WithApplicationDir("testdata/app"))
	r := cliNewRunner(t, bin, srv.URL())
	feed := cliBuildFeed(t)
	model := feed.model

	ok := t.Run("vespa feed sends every operation once and reports each status", func(t *testing.T) {
		path := r.cliWriteFile(t, "feed.jsonl", []byte(strings.Join(feed.lines, "\n")+"\n"))
		cliFeed(t, r, path, feed.ops, feed.codes)
		cliCheckStore(t, srv, model)
	})
	if !ok {
		t.FailNow()
	}

	t.Run("vespa document get prints the documents fed", func(t *testing.T) {
		cliGet(t, r, model,
			cliID(cliSongName(0)),  // embedding, updated
			cliID(cliSongName(1)),  // its conditional update failed
			cliID(cliSongName(2)),  // conditionally updated
			cliID(cliSongName(37)), // plain
			cliID("created-by-update"))
	})

	t.Run("vespa document get of a missing document fails as for Vespa's 404", func(t *testing.T) {
		res := r.run(t, "document", "get", cliID("missing"))
		if res.code != 1 {
			t.Errorf("exit code %d, want 1", res.code)
		}
		if res.stdout != "" {
			t.Errorf("stdout = %q, want nothing", res.stdout)
		}
		if want := cliNotFoundStderr(t, "missing"); res.stderr != want {
			t.Errorf("stderr =\n%s\nwant\n%s", res.stderr, want)
		}
		// The removed song is as missing as one never fed.
		res = r.run(t, "document", "get", cliID(cliSongName(cliSongs-1)))
		if want := cliNotFoundStderr(t, cliSongName(cliSongs-1)); res.code != 1 || res.stderr != want {
			t.Errorf("get of the removed song: exit %d, stderr\n%s\nwant exit 1, stderr\n%s", res.code, res.stderr, want)
		}
	})

	t.Run("vespa document get --ignore-missing prints the rest and succeeds", func(t *testing.T) {
		id := cliID(cliSongName(3))
		res := r.run(t, "document", "get", "--ignore-missing", cliID("missing"), id)
		if res.code != 0 {
			t.Fatalf("exit code %d, want 0\nstderr:\n%s", res.code, res.stderr)
		}
		if want := cliNotFoundStderr(t, "missing"); res.stderr != want {
			t.Errorf("stderr =\n%s\nwant\n%s", res.stderr, want)
		}
		var got cliGotDocument
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
			t.Fatalf("stdout is not one document: %v\n%s", err, res.stdout)
		}
		fields, err := cliDecodeFields(got.Fields)
		if err != nil || got.ID != id {
			t.Fatalf("stdout holds %q (%v), want %s", got.ID, err, id)
		}
		cliCheckFields(t, "vespa document get "+id, fields, model[id])
	})

	t.Run("vespa document put, update and remove apply single operations", func(t *testing.T) {
		name := "cli-single"
		id := cliID(name)
		res := r.mustRun(t, "document", "put", id, "--data",
			`{"fields":{"title":"Put by the CLI crimson","year":2001,"popularity":7,"tags":["cli"]}}`)
		if want := "Success: put " + id + "\n"; res.stdout != want {
			t.Errorf("put: stdout = %q, want %q", res.stdout, want)
		}
		model[id] = cliFields{"title": "Put by the CLI crimson", "year": float64(2001), "popularity": float64(7), "tags": []any{"cli"}}

		res = r.mustRun(t, "document", "update", id, "--data", `{"fields":{"popularity":{"increment":3}}}`)
		if want := "Success: update " + id + "\n"; res.stdout != want {
			t.Errorf("update: stdout = %q, want %q", res.stdout, want)
		}
		model[id]["popularity"] = float64(10)

		// A conditional update that matches, from a file naming the operation.
		path := r.cliWriteFile(t, "update.json", []byte(`{"update":"`+id+`","condition":"music.popularity==10",`+
			`"fields":{"tags":{"add":["conditional"]}}}`))
		res = r.mustRun(t, "document", "update", path)
		if want := "Success: update " + id + "\n"; res.stdout != want {
			t.Errorf("conditional update: stdout = %q, want %q", res.stdout, want)
		}
		model[id]["tags"] = []any{"cli", "conditional"}

		// An update with create of a document that does not exist.
		created := cliID("cli-created")
		res = r.mustRun(t, "document", "update", created, "--data",
			`{"create":true,"fields":{"title":{"assign":"Made by create"}}}`)
		if want := "Success: update " + created + "\n"; res.stdout != want {
			t.Errorf("update with create: stdout = %q, want %q", res.stdout, want)
		}
		model[created] = cliFields{"title": "Made by create"}

		// The root command takes the operation from the file.
		path = r.cliWriteFile(t, "put.json", []byte(`{"put":"`+cliID("cli-file")+`","fields":{"title":"From a file","year":1999}}`))
		res = r.mustRun(t, "document", path)
		if want := "Success: put " + cliID("cli-file") + "\n"; res.stdout != want {
			t.Errorf("document <file>: stdout = %q, want %q", res.stdout, want)
		}
		model[cliID("cli-file")] = cliFields{"title": "From a file", "year": float64(1999)}

		cliGet(t, r, model, id, created, cliID("cli-file"))

		res = r.mustRun(t, "document", "remove", cliID("cli-file"))
		if want := "Success: remove " + cliID("cli-file") + "\n"; res.stdout != want {
			t.Errorf("remove: stdout = %q, want %q", res.stdout, want)
		}
		delete(model, cliID("cli-file"))
		res = r.run(t, "document", "get", cliID("cli-file"))
		if want := cliNotFoundStderr(t, "cli-file"); res.code != 1 || res.stderr != want {
			t.Errorf("get after remove: exit %d, stderr\n%s\nwant exit 1, stderr\n%s", res.code, res.stderr, want)
		}
		cliCheckStore(t, srv, model)
	})

	t.Run("a condition that does not match fails put, update and remove with 412", func(t *testing.T) {
		id := cliID("cli-single")
		res := r.run(t, "document", "update", id, "--data",
			`{"condition":"music.popularity==0","fields":{"title":{"assign":"never written"}}}`)
		cliCheckConditionFailed(t, res)

		res = r.run(t, "document", "put", id, "--data",
			`{"condition":"music.year==1900","fields":{"title":"never written"}}`)
		cliCheckConditionFailed(t, res)

		path := r.cliWriteFile(t, "remove.json", []byte(`{"remove":"`+id+`","condition":"music.title==\"nothing\""}`))
		res = r.run(t, "document", "remove", path)
		cliCheckConditionFailed(t, res)

		cliGet(t, r, model, id) // unchanged
	})

	t.Run("vespa query finds the songs whose title holds a word", func(t *testing.T) {
		for _, word := range []string{"crimson", "teal"} {
			want := map[string]bool{}
			for id, f := range model {
				if cliTitleHas(f["title"], word) {
					want[id] = true
				}
			}
			res := r.mustRun(t, "query", "--format", "plain",
				`yql=select * from music where title contains "`+word+`"`, "hits=400")
			var q cliQueryResult
			if err := json.Unmarshal([]byte(res.stdout), &q); err != nil {
				t.Fatalf("vespa query printed no result JSON: %v\n%s", err, cliTrim(res.stdout))
			}
			if q.Root.ID != "toplevel" {
				t.Errorf("root.id = %q, want toplevel", q.Root.ID)
			}
			if q.Root.Fields.TotalCount != len(want) || len(q.Root.Children) != len(want) {
				t.Errorf("%q: totalCount %d and %d hits, want %d of each", word, q.Root.Fields.TotalCount, len(q.Root.Children), len(want))
			}
			seen := map[string]bool{}
			for _, h := range q.Root.Children {
				id, _ := h.Fields["documentid"].(string)
				if !want[id] || seen[id] {
					t.Errorf("%q: hit %q is unexpected or repeated", word, id)
					continue
				}
				seen[id] = true
				if h.ID != id {
					t.Errorf("hit id %q, want its documentid %q", h.ID, id)
				}
				if h.Fields["sddocname"] != "music" {
					t.Errorf("hit %s: sddocname = %v, want music", id, h.Fields["sddocname"])
				}
				// The default summary: the summary fields, and no embedding.
				for _, k := range []string{"title", "year", "popularity", "tags"} {
					if !reflect.DeepEqual(h.Fields[k], model[id][k]) {
						t.Errorf("hit %s: %s = %s, want %s", id, k, cliShort(h.Fields[k]), cliShort(model[id][k]))
					}
				}
				if _, ok := h.Fields["embedding"]; ok {
					t.Errorf("hit %s shows the embedding, which is not a summary field", id)
				}
			}
		}
	})

	t.Run("vespa query counts the corpus and reports a YQL error", func(t *testing.T) {
		res := r.mustRun(t, "query", "--format", "plain", "yql=select * from music where true", "hits=0")
		var q cliQueryResult
		if err := json.Unmarshal([]byte(res.stdout), &q); err != nil {
			t.Fatalf("vespa query printed no result JSON: %v\n%s", err, cliTrim(res.stdout))
		}
		if q.Root.Fields.TotalCount != len(model) || len(q.Root.Children) != 0 {
			t.Errorf("totalCount %d with %d hits, want %d with 0", q.Root.Fields.TotalCount, len(q.Root.Children), len(model))
		}

		// query.go: a 4xx prints "invalid query: <status>" and the body.
		res = r.run(t, "query", "--format", "plain", "yql=select * from music where")
		if res.code != 1 {
			t.Errorf("a bad YQL: exit code %d, want 1", res.code)
		}
		const head = "Error: invalid query: 400 Bad Request\n"
		payload, ok := strings.CutPrefix(res.stderr, head)
		if !ok {
			t.Fatalf("a bad YQL: stderr does not start with %q:\n%s", head, res.stderr)
		}
		if err := json.Unmarshal([]byte(payload), &q); err != nil {
			t.Fatalf("a bad YQL: the body is not JSON: %v\n%s", err, payload)
		}
		// Vespa's container answers a YQL that does not parse with code 4
		// (INVALID_QUERY_PARAMETER, "Could not create query from YQL"), as the
		// JDisc target recorded in testdata/jdisc/differential.json.
		if len(q.Root.Errors) != 1 || q.Root.Errors[0].Code != 4 {
			t.Errorf("a bad YQL: errors %+v, want one with code 4 (INVALID_QUERY_PARAMETER)", q.Root.Errors)
		}
	})

	t.Run("vespa visit prints every document exactly once", func(t *testing.T) {
		// The default visits both bucket spaces, global then default: the
		// music documents live in the default space only.
		res := r.mustRun(t, "visit", "--content-cluster", cliCluster)
		cliCheckVisit(t, "visit", cliParseLines(t, res.stdout), model)

		// Without --content-cluster the CLI visits cluster "*" first and
		// reads the cluster names from Vespa's 400 message.
		res = r.mustRun(t, "visit")
		cliCheckVisit(t, "visit of any cluster", cliParseLines(t, res.stdout), model)

		// Small pages: many continuation tokens.
		res = r.mustRun(t, "visit", "--content-cluster", cliCluster, "--chunk-count", "7")
		cliCheckVisit(t, "visit in pages of 7", cliParseLines(t, res.stdout), model)

		// Streamed, in JSONL.
		res = r.mustRun(t, "visit", "--content-cluster", cliCluster, "--stream")
		cliCheckVisit(t, "streamed visit", cliParseLines(t, res.stdout), model)
		if strings.Contains(res.stderr, "WARNING") {
			t.Errorf("streamed visit warned:\n%s", res.stderr)
		}

		// Only the default bucket space, where the documents are.
		res = r.mustRun(t, "visit", "--content-cluster", cliCluster, "--bucket-space", "default")
		cliCheckVisit(t, "visit of the default bucket space", cliParseLines(t, res.stdout), model)
		res = r.mustRun(t, "visit", "--content-cluster", cliCluster, "--bucket-space", "global")
		if docs := cliParseLines(t, res.stdout); len(docs) != 0 {
			t.Errorf("visit of the global bucket space printed %d documents, want none (music is not global)", len(docs))
		}
	})

	t.Run("vespa visit with a selection or a field set", func(t *testing.T) {
		old := cliModel{}
		for id, f := range model {
			if y, ok := f["year"].(float64); ok && y < 1970 {
				old[id] = f
			}
		}
		res := r.mustRun(t, "visit", "--content-cluster", cliCluster, "--selection", "music.year < 1970")
		cliCheckVisit(t, "visit of music.year < 1970", cliParseLines(t, res.stdout), old)

		res = r.mustRun(t, "visit", "--content-cluster", cliCluster, "--field-set", "music:title")
		cliCheckVisit(t, "visit of music:title", cliParseLines(t, res.stdout), model, "title")
	})

	t.Run("vespa visit in 2 slices returns the corpus as a partition", func(t *testing.T) {
		var all []cliVisitedDoc
		for id := range 2 {
			res := r.mustRun(t, "visit", "--content-cluster", cliCluster, "--slices", "2", "--slice-id", fmt.Sprint(id),
				"--chunk-count", "50")
			docs := cliParseLines(t, res.stdout)
			if len(docs) == 0 || len(docs) == len(model) {
				t.Errorf("slice %d of 2 holds %d of %d documents: not a real split", id, len(docs), len(model))
			}
			all = append(all, docs...)
		}
		cliCheckVisit(t, "union of 2 slices", all, model)
	})

	t.Run("vespa visit --make-feed prints a feed that recreates the store", func(t *testing.T) {
		res := r.mustRun(t, "visit", "--content-cluster", cliCluster, "--make-feed")
		var docs []cliVisitedDoc
		if err := json.Unmarshal([]byte(res.stdout), &docs); err != nil {
			t.Fatalf("--make-feed output is not a JSON array: %v\n%s", err, cliTrim(res.stdout))
		}
		cliCheckVisit(t, "visit --make-feed", docs, model)

		// Feed it, with the CLI, into a second, empty emulator.
		srv2 := vespatest.NewTestServer(t, vespatest.WithApplicationDir("testdata/app"))
		r2 := cliNewRunner(t, bin, srv2.URL())
		path := r2.cliWriteFile(t, "visited.json", []byte(res.stdout))
		n := int64(len(model))
		cliFeed(t, r2, path, n, map[int]int64{200: n})
		cliCheckStore(t, srv2, model)
	})

	t.Run("the emulator stores what the CLI fed", func(t *testing.T) {
		cliCheckStore(t, srv, model)
	})
}
