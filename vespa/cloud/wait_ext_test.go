package cloud_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
)

// inProcessClient returns a cloud client that reaches h in-process.
func inProcessClient(t *testing.T, h http.Handler, key []byte, opts ...cloud.Option) *cloud.Client {
	t.Helper()
	c, err := cloud.NewClient(testApp, append([]cloud.Option{cloud.WithEndpoint("http://cloud.test"), cloud.WithAPIKey(key),
		cloud.WithHTTPClient(&http.Client{Transport: testutil.HandlerTransport{Handler: h}})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFollowRun_BoundedByContextDeadline(t *testing.T) {
	key := newKey(t)
	// The run logs one entry an hour: it cannot finish within the deadline.
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(time.Hour))
	synctest.Test(t, func(t *testing.T) {
		c := inProcessClient(t, srv.Handler(), key)
		run, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
		defer cancel()
		n := 0
		_, err = c.FollowRun(ctx, run, func(cloud.LogEntry) { n++ })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("FollowRun = %v, want DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 10*time.Minute {
			t.Errorf("FollowRun gave up after %v, want the 10m deadline", got)
		}
		if n != 0 {
			t.Errorf("%d entries before the first hour", n)
		}
	})
}

func TestFollowRun_NoDeadlineMeansDefaultWaitTimeout(t *testing.T) {
	key := newKey(t)
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(24*time.Hour))
	synctest.Test(t, func(t *testing.T) {
		c := inProcessClient(t, srv.Handler(), key, cloud.WithPollInterval(time.Minute))
		run, err := c.Deploy(context.Background(), devZone, certPackage(t), cloud.DeployOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.FollowRun(context.Background(), run, nil)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != cloud.DefaultWaitTimeout {
			t.Errorf("FollowRun = %v after %v, want DeadlineExceeded after %v", err, time.Since(start), cloud.DefaultWaitTimeout)
		}
	})
}

func TestFollowRun_LogArrivesOverTime(t *testing.T) {
	key := newKey(t)
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(10*time.Second))
	synctest.Test(t, func(t *testing.T) {
		c := inProcessClient(t, srv.Handler(), key) // polls every 2 s
		run, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var arrived []time.Duration
		res, err := c.FollowRun(t.Context(), run, func(e cloud.LogEntry) { arrived = append(arrived, time.Since(start)) })
		if err != nil || !res.Status.Succeeded() {
			t.Fatalf("FollowRun = %+v, %v", res, err)
		}
		// Entry i appears at (i+1)·10 s and is handed over at the first poll after.
		for i, at := range arrived {
			if want := time.Duration(i+1) * 10 * time.Second; at != want {
				t.Errorf("entry %d handed over at %v, want %v", i, at, want)
			}
		}
		if len(arrived) != 7 {
			t.Errorf("%d entries", len(arrived))
		}
	})
}

func TestClient_RetryWaitsUnderSynctest(t *testing.T) {
	key := newKey(t)
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key))
	synctest.Test(t, func(t *testing.T) {
		c := inProcessClient(t, srv.Handler(), key)
		if _, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{}); err != nil {
			t.Fatal(err)
		}
		srv.FailNext(2, http.StatusBadGateway)
		start := time.Now()
		if _, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{}); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("two retries took %v, want 1 s + 2 s", got)
		}
		srv.FailNext(3, http.StatusServiceUnavailable)
		_, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{})
		var e *cloud.Error
		if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable || e.Message != "injected fault" {
			t.Errorf("after 3 failed attempts: %v, want the last 503", err)
		}
		// A retry in progress ends at once when the context does (two
		// attempts, at 0 and 1 s, then the wait of 2 s is cut at 1.5 s).
		srv.FailNext(2, http.StatusServiceUnavailable)
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		start = time.Now()
		if _, err := c.Endpoints(ctx, devZone, cloud.EndpointFilter{}); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 1500*time.Millisecond {
			t.Errorf("retry under a 1.5 s deadline: %v after %v", err, time.Since(start))
		}
		// An upload is not retried, even on a 502: one request, its error.
		srv.FailNext(1, http.StatusBadGateway)
		before := len(srv.Requests())
		start = time.Now()
		_, err = c.CreateToken(t.Context(), "tok", 0)
		if !errors.As(err, &e) || e.Status != http.StatusBadGateway || len(srv.Requests())-before != 1 || time.Since(start) != 0 {
			t.Errorf("CreateToken after a 502: %v, %d requests in %v; want the 502 after 1 request, at once", err, len(srv.Requests())-before, time.Since(start))
		}
	})
}
