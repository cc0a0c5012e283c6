//go:build unix

package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestMain_ASecondSignalKills runs Main in a child process (this test
// binary again) whose run, once its context has ended, takes long to
// return: interrupts after the first must kill it as by default.
func TestMain_ASecondSignalKills(t *testing.T) {
	if os.Getenv("GOVESPA_CLI_MAIN_CHILD") == "1" {
		Main(func(ctx context.Context) int {
			fmt.Println("ready")
			<-ctx.Done()
			fmt.Println("ended")
			time.Sleep(20 * time.Second) // a slow shutdown
			return ExitOK
		})
		return
	}
	cmd, lines := startInterruptedChild(t, "TestMain_ASecondSignalKills", "1")
	if !lines.Scan() || lines.Text() != "ended" {
		t.Fatalf("child said %q after the interrupt, want ended", lines.Text())
	}
	exited := make(chan struct{})
	go func() { defer close(exited); _ = cmd.Wait() }()
	// Main stops taking the signals just after the context ends: interrupt
	// until the child dies, for at most 10 s.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-exited: // the error of a killed child: its state says more
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
				t.Errorf("child ended with %v, want killed by SIGINT", cmd.ProcessState)
			}
			return
		case <-tick.C:
			_ = cmd.Process.Signal(os.Interrupt)
		case <-deadline:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatal("the child outlived 10 s of interrupts after its context ended")
		}
	}
}

// TestMain_InterruptedExits130 runs Main in a child process whose run fails
// once an interrupt has ended its context: the child exits 130, as a shell
// reports a program stopped by Ctrl-C, not 1 like any failure. Before, it
// exited with run's 1.
func TestMain_InterruptedExits130(t *testing.T) {
	if os.Getenv("GOVESPA_CLI_MAIN_CHILD") == "130" {
		Main(func(ctx context.Context) int {
			fmt.Println("ready")
			<-ctx.Done()
			return ExitFailed
		})
		return
	}
	cmd, lines := startInterruptedChild(t, "TestMain_InterruptedExits130", "130")
	for lines.Scan() { // drain until the child closes its output
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("child exited %d after an interrupt, want %d", code, ExitInterrupted)
	}
}

// startInterruptedChild runs test in a child process with
// GOVESPA_CLI_MAIN_CHILD=mode, waits for its "ready" and interrupts it once;
// it hands back the child and the rest of its output.
func startInterruptedChild(t *testing.T, test, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$") //nolint:gosec // G204: this test binary
	cmd.Env = append(os.Environ(), "GOVESPA_CLI_MAIN_CHILD="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child said %q, want ready", lines.Text())
	}
	_ = cmd.Process.Signal(os.Interrupt)
	return cmd, lines
}
