package redistest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// TestPortTaken starts a second server on the port of a first: it must
// say the port is taken, not take the first's answers for its own.
func TestPortTaken(t *testing.T) {
	first := Start(t)
	second := &Server{tb: t, dir: t.TempDir(), port: first.port}
	err := second.start()
	if !errors.Is(err, errPortTaken) {
		second.Stop()
		t.Fatalf("start on %s's port: %v, want %v", first.Addr(), err, errPortTaken)
	}
	if len(first.Clients()) != 0 {
		t.Errorf("the first server has clients after the second's start: %q", first.Clients())
	}
}

// TestPauseAnswersNothing: once Pause returns, the server answers nothing,
// not even a question already on its way; once Resume returns, it answers.
// Each round pauses a server busy with another client's questions, so
// that its threads are running or ready to run when the stop comes: on a
// loaded machine, a thread not yet stopped could still answer.
func TestPauseAnswersNothing(t *testing.T) {
	s := Start(t)
	busy, quick, patient := s.client(time.Second), s.client(100*time.Millisecond), s.client(30*time.Second)
	for _, c := range []*goredis.Client{busy, quick, patient} {
		defer func() { _ = c.Close() }()
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		for ctx.Err() == nil {
			_ = busy.Ping(ctx).Err() // fails while paused, and asks again
		}
	}()
	for i := range 50 {
		s.Pause()
		if err := quick.Ping(context.Background()).Err(); err == nil {
			s.Resume()
			t.Fatalf("round %d: PING after Pause was answered", i)
		}
		s.Resume()
		if err := patient.Ping(context.Background()).Err(); err != nil {
			t.Fatalf("round %d: PING after Resume: %v", i, err)
		}
	}
}

// TestThreadStates: the states Pause and Resume wait on are every
// thread's: this process's are running or asleep, none stopped, and a
// paused server's are all stopped (T).
func TestThreadStates(t *testing.T) {
	states, settled, err := threadStates(os.Getpid(), false)
	if err != nil || !settled {
		t.Fatalf("this process, none stopped: %q, %v, %v; want true", states, settled, err)
	}
	if _, settled, _ := threadStates(os.Getpid(), true); settled {
		t.Errorf("this process, all stopped: true; want false (%s)", states)
	}
	s := Start(t)
	s.Pause()
	states, _, err = threadStates(s.cmd.Process.Pid, true)
	s.Resume()
	if err != nil || !strings.Contains(states, " T") || strings.Contains(states, " S") || strings.Contains(states, " R") {
		t.Errorf("a paused server's threads: %q, %v; want each T", states, err)
	}
}
