package jdisc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config says how to start the harness.
type Config struct {
	// App is the application package whose schemas/*.sd the harness serves;
	// the first <content id="..."> of its services.xml names the content
	// cluster ("music" when there is none).
	App string
	// Port is the port of the container; 0 picks a free one.
	Port int
	// PackageDir is where the harness writes the application package it
	// runs (services.xml with the port, the schemas); empty: a temporary
	// directory, removed by Close.
	PackageDir string
	// MaxHeap is the JVM's -Xmx; empty: "1g".
	MaxHeap string
	// Log receives the JVM's output, line by line (Vespa's log); nil keeps
	// only the last lines, for [Harness.Logs].
	Log io.Writer
	// StartTimeout bounds the start; zero: 3 minutes.
	StartTimeout time.Duration
}

// Harness is a running harness JVM.
type Harness struct {
	// URL is the container's base URL, http://127.0.0.1:<port>.
	URL string
	// Cluster is the content cluster of the document types.
	Cluster string
	// Startup is how long the JVM took from exec to ready, as it reported.
	Startup time.Duration

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	tmp     string
	logs    *tail
	done    chan struct{}
	waitErr error
	once    sync.Once
}

// Start starts the harness from b and waits until it answers. Close stops it.
func Start(ctx context.Context, b *Built, cfg Config) (*Harness, error) {
	schemas := filepath.Join(cfg.App, "schemas")
	if _, err := os.Stat(schemas); err != nil {
		return nil, fmt.Errorf("jdisc: application package %s: no schemas directory: %w", cfg.App, err)
	}
	cluster, err := ContentCluster(cfg.App)
	if err != nil {
		return nil, err
	}
	global, err := GlobalDocumentTypes(cfg.App)
	if err != nil {
		return nil, err
	}
	h := &Harness{Cluster: cluster, logs: &tail{max: 400}, done: make(chan struct{})}
	pkg := cfg.PackageDir
	if pkg == "" {
		if h.tmp, err = os.MkdirTemp("", "govespa-jdisc-"); err != nil {
			return nil, err
		}
		pkg = h.tmp
	}
	heap := cfg.MaxHeap
	if heap == "" {
		heap = "1g"
	}
	timeout := cfg.StartTimeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	// The JVM outlives Start's context (ctx only bounds the start); Close stops it.
	h.cmd = exec.CommandContext(context.WithoutCancel(ctx), b.Java, //nolint:gosec // the java found by Check, running this package's harness
		"-Xmx"+heap, "-cp", b.Jar+string(os.PathListSeparator)+b.ClassPath, "harness.Main",
		"--schemas", schemas, "--package", pkg, "--port", strconv.Itoa(cfg.Port), "--cluster", cluster, "--global", strings.Join(global, ","))
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var logw io.Writer = h.logs
	if cfg.Log != nil {
		logw = io.MultiWriter(h.logs, cfg.Log)
	}
	h.cmd.Stderr = logw
	if err := h.cmd.Start(); err != nil {
		h.cleanup()
		return nil, fmt.Errorf("jdisc: starting %s: %w", b.Java, err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "READY ") {
				select {
				case ready <- line:
				default:
				}
			}
			fmt.Fprintln(logw, line)
		}
		// A line too long for the scanner ends the loop early: drain the
		// rest, so that the JVM never blocks on a full pipe and Wait comes
		// after every read, as os/exec requires.
		_, _ = io.Copy(logw, stdout)
		h.waitErr = h.cmd.Wait()
		close(h.done)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line := <-ready:
		var port, ms int
		if _, err := fmt.Sscanf(line, "READY %d %d", &port, &ms); err != nil {
			h.Close()
			return nil, fmt.Errorf("jdisc: bad ready line %q", line)
		}
		h.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		h.Startup = time.Duration(ms) * time.Millisecond
		return h, nil
	case <-h.done:
		h.cleanup()
		return nil, fmt.Errorf("jdisc: the harness exited before it was ready (%w):\n%s", h.waitErr, lastLines(string(h.logs.Bytes()), 40))
	case <-timer.C:
		h.Close()
		return nil, fmt.Errorf("jdisc: the harness was not ready after %v:\n%s", timeout, lastLines(string(h.logs.Bytes()), 40))
	case <-ctx.Done():
		h.Close()
		return nil, fmt.Errorf("jdisc: starting the harness: %w", ctx.Err())
	}
}

// Attach returns a Harness for one that runs elsewhere (in a container of
// [BuildImage]'s image) at url, serving cluster: its control calls work;
// Close does nothing and Logs is empty, as the process is not this one's.
func Attach(url, cluster string) *Harness {
	return &Harness{URL: url, Cluster: cluster, logs: &tail{max: 1}}
}

// Close stops the harness: it closes the JVM's stdin, which makes it shut
// down, and kills it if it has not exited after 20 seconds.
func (h *Harness) Close() {
	h.once.Do(func() {
		if h.cmd == nil {
			return
		}
		_ = h.stdin.Close()
		select {
		case <-h.done:
		case <-time.After(20 * time.Second):
			_ = h.cmd.Process.Kill()
			<-h.done
		}
		h.cleanup()
	})
}

func (h *Harness) cleanup() {
	if h.tmp != "" {
		_ = os.RemoveAll(h.tmp)
	}
}

// Logs returns the last lines the JVM wrote.
func (h *Harness) Logs() []byte { return h.logs.Bytes() }

// Reset forgets every document and armed fault.
func (h *Harness) Reset(ctx context.Context) error {
	return h.control(ctx, http.MethodPost, "/harness/v1/reset", nil)
}

// Fault arms count faults of kind (transient, overload, timeout, storage,
// error) for op (put, update, remove, get, visit, any).
func (h *Harness) Fault(ctx context.Context, op, kind string, count int) error {
	q := url.Values{"op": {op}, "kind": {kind}, "count": {strconv.Itoa(count)}}
	return h.control(ctx, http.MethodPost, "/harness/v1/faults", q)
}

// ClearFaults disarms every fault.
func (h *Harness) ClearFaults(ctx context.Context) error {
	return h.control(ctx, http.MethodDelete, "/harness/v1/faults", nil)
}

func (h *Harness) control(ctx context.Context, method, path string, q url.Values) error {
	u := h.URL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("jdisc: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jdisc: %s %s: status %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}

// ContentCluster reads the first content cluster's id from app's
// services.xml; "music" when there is no services.xml or no content cluster.
func ContentCluster(app string) (string, error) {
	b, err := os.ReadFile(filepath.Join(app, "services.xml"))
	if errors.Is(err, os.ErrNotExist) {
		return "music", nil
	}
	if err != nil {
		return "", err
	}
	var s struct {
		Content []struct {
			ID string `xml:"id,attr"`
		} `xml:"content"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("jdisc: %s/services.xml: %w", app, err)
	}
	if len(s.Content) == 0 || s.Content[0].ID == "" {
		return "music", nil
	}
	return s.Content[0].ID, nil
}

// GlobalDocumentTypes reads the document types that app's services.xml
// distributes globally (<document type="x" global="true"/> in a content
// cluster): a type that a reference field points to must be one, or Vespa's
// config model refuses the application (config-model
// GlobalDistributionValidator). None when there is no services.xml.
func GlobalDocumentTypes(app string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(app, "services.xml"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s struct {
		Content []struct {
			Documents struct {
				Document []struct {
					Type   string `xml:"type,attr"`
					Global string `xml:"global,attr"`
				} `xml:"document"`
			} `xml:"documents"`
		} `xml:"content"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("jdisc: %s/services.xml: %w", app, err)
	}
	var out []string
	for _, c := range s.Content {
		for _, d := range c.Documents.Document {
			if d.Global == "true" && d.Type != "" {
				out = append(out, d.Type)
			}
		}
	}
	return out, nil
}

// tail keeps the last max lines written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	lines [][]byte
	part  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, append([]byte(nil), t.part[:i+1]...))
		t.part = t.part[i+1:]
		if len(t.lines) > t.max {
			t.lines = t.lines[len(t.lines)-t.max:]
		}
	}
	return len(p), nil
}

// Bytes returns the kept lines.
func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b bytes.Buffer
	for _, l := range t.lines {
		b.Write(l)
	}
	b.Write(t.part)
	return b.Bytes()
}
