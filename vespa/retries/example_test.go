package retries_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// reply stands for an HTTP response: a result that carries its status, which
// is all a policy needs to classify it.
type reply struct{ status int }

func (r *reply) StatusCode() int { return r.status }

// Every example drops the policy's waits with WithWait(WaitNone()) so that it
// runs at once; real code keeps the policy's own waits.

func ExamplePolicy_Do() {
	attempts := 0
	err := retries.Embedder.WithWait(retries.WaitNone()).Do(context.Background(), func(ctx context.Context) error {
		attempts++
		if attempts < 3 {
			return errors.New("embedding service unavailable")
		}
		return nil
	})
	fmt.Println(attempts, err)
	// Output: 3 <nil>
}

func ExampleRun() {
	// SyncRequest retries a 429 response (a result, not an error) and
	// connection errors.
	attempts := 0
	res, err := retries.Run(context.Background(), retries.SyncRequest.WithWait(retries.WaitNone()),
		func(ctx context.Context) (*reply, error) {
			attempts++
			if attempts < 3 {
				return &reply{status: http.StatusTooManyRequests}, nil
			}
			return &reply{status: http.StatusOK}, nil
		})
	fmt.Println(attempts, res.status, err)
	// Output: 3 200 <nil>
}

func ExamplePolicy_WithMaxAttempts() {
	// Throttle never stops on its own; WithMaxAttempts adds a stop, and the
	// last outcome comes back as it was: the 429 response with a nil error.
	throttle := retries.Throttle.WithMaxAttempts(4).WithWait(retries.WaitNone())
	attempts := 0
	res, err := retries.Run(context.Background(), throttle, func(ctx context.Context) (*reply, error) {
		attempts++
		return &reply{status: http.StatusTooManyRequests}, nil
	})
	fmt.Println(throttle, attempts, res.status, err)
	fmt.Println(retries.Throttle) // the named policy is unchanged
	// Output:
	// retries.Throttle(4 attempts) 4 429 <nil>
	// retries.Throttle(unbounded)
}

func ExampleNew() {
	// A custom policy: retry 502 and 504 responses, at most 4 attempts, with
	// a jittered exponential wait (100 ms, 200 ms, 400 ms, each minus up to
	// 20 %).
	wait, err := retries.WaitJittered(100*time.Millisecond, time.Second, 2, 0.2)
	if err != nil {
		fmt.Println(err)
		return
	}
	gateway := retries.New("Gateway", retries.RetryIfStatus(http.StatusBadGateway, http.StatusGatewayTimeout), wait, 4).
		WithWait(retries.WaitNone()) // see above
	statuses := []int{502, 504, 502, 502}
	attempts := 0
	res, err := retries.Run(context.Background(), gateway, func(ctx context.Context) (*reply, error) {
		attempts++
		return &reply{status: statuses[attempts-1]}, nil
	})
	fmt.Println(gateway, attempts, res.status, err)
	// Output: retries.Gateway(4 attempts) 4 502 <nil>
}

func ExamplePolicy_WithOnRetry() {
	// The observer counts retries without wrapping the operation.
	retried := 0
	p := retries.DocV1.WithWait(retries.WaitNone()).WithOnRetry(func(o retries.Outcome, wait time.Duration) {
		retried++
		fmt.Printf("attempt %d got %d; retrying after %v\n", o.Attempt, o.StatusCode(), wait)
	})
	res, err := retries.Run(context.Background(), p, func(ctx context.Context) (*reply, error) {
		return &reply{status: http.StatusServiceUnavailable}, nil
	})
	fmt.Println(retried, res.status, err)
	// Output:
	// attempt 1 got 503; retrying after 0s
	// attempt 2 got 503; retrying after 0s
	// 2 503 <nil>
}

func ExampleWaitJittered() {
	_, err := retries.WaitJittered(time.Second, time.Minute, 2, 1.5)
	fmt.Println(err)
	w, _ := retries.WaitJittered(time.Second, 5*time.Second, 2, 0) // no jitter: exact waits
	fmt.Println(w.Delay(1), w.Delay(2), w.Delay(3), w.Delay(4))
	// Output:
	// retries: WaitJittered: jitter must be in [0, 1], got 1.5
	// 1s 2s 4s 5s
}

func ExampleIsConnectionError() {
	// A port nobody listens on any more refuses the connection.
	ctx := context.Background()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	addr := ln.Addr().String()
	ln.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	fmt.Println(retries.IsConnectionError(err))
	fmt.Println(retries.IsConnectionError(context.Canceled))
	// Output:
	// true
	// false
}
