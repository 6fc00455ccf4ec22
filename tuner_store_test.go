package vkbench_test

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	_ "github.com/vkbench/vkbench/store/redis"
	"github.com/vkbench/vkbench/store/storetest"
)

// TestTunerStore: programs whose TunerOptions name one Store share their
// answers: a second program, with an empty cache file, gets the first's
// answer from the store, as the first measured it, and keeps it in its
// file; a store of a scheme no package registered is refused, and so is
// one that refuses the password; one that is down is a warning.
func TestTunerStore(t *testing.T) {
	srv := redistest.Start(t)
	dev := open(t)
	slow := scaleKernel
	slow.Name, slow.WorkgroupSize, slow.Constants = "slow", [3]uint32{1, 1, 1}, map[uint32]uint32{0: 1}
	op := scaleOpOf(slow, scaleKernel)
	tuner := func(cache string) *vkbench.Tuner {
		tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), cache), Store: srv.URL(), Warmup: -1})
		if err != nil {
			t.Fatal(err)
		}
		return tu
	}
	first, second := tuner("a.db"), tuner("b.db")
	if _, err := first.Fastest(context.Background(), op, 4096); err != nil {
		t.Fatal(err)
	}
	if r, err := second.Result(t.Context(), op, 4096); r != nil || err != nil {
		t.Fatalf("the second program's file already has %+v, %v", r, err)
	}
	if _, err := second.Fastest(context.Background(), op, 4096); err != nil {
		t.Fatal(err)
	}
	want, err := first.Result(t.Context(), op, 4096)
	if err != nil {
		t.Fatal(err)
	}
	got, err := second.Result(t.Context(), op, 4096)
	if err != nil || got == nil {
		t.Fatalf("the second program's file has no answer: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the second program's answer is not the one the first measured (-first +second):\n%s", diff)
	}
	if _, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: "off", Store: "memcached://localhost:11211"}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("a store of no registered scheme: %v, want InvalidArgument", err)
	}
	wrong := strings.Replace(srv.DefaultURL(), redistest.Password, "wrong", 1)
	if _, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: "off", Store: wrong}); status.CodeOf(err) != status.Unauthenticated {
		t.Errorf("a store that refuses the password: %v, want Unauthenticated", err)
	}
	// A store out of reach is a warning: the tuner works from its file.
	srv.Stop()
	var log strings.Builder
	tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "c.db"), Store: srv.DefaultURL(), Warmup: -1,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("NewTuner with the store down: %v", err)
	}
	if _, err := tu.Fastest(context.Background(), op, 4096); err != nil || strings.Count(log.String(), "level=WARN") != 1 || !strings.Contains(log.String(), "working from the local file only") {
		t.Errorf("with the store down: %v; want an answer and one warning:\n%s", err, log.String())
	}
}

// TestTunerStoreClosed: the Device's Close closes its tuners' shared
// stores: the server has no connection from this process after it (the
// server notices a closed connection when it next reads it, so the test
// waits for that, up to a bound that only a failure reaches). A tuner
// made after Close is refused.
func TestTunerStoreClosed(t *testing.T) {
	srv := redistest.Start(t)
	dev := open(t)
	op := scaleOpOf(scaleKernel)
	var tuners []*vkbench.Tuner
	for _, cache := range []string{"a.db", "b.db"} {
		tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), cache), Store: srv.URL(), Warmup: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tu.Fastest(context.Background(), op, 4096); err != nil {
			t.Fatal(err)
		}
		tuners = append(tuners, tu)
	}
	if c := srv.Clients(); len(c) == 0 {
		t.Fatal("the tuners have no connection to the store: nothing to test")
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	var left []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if left = srv.Clients(); len(left) == 0 {
			break
		}
	}
	if len(left) != 0 {
		t.Errorf("after the Device's Close, the store still has %d connections from this process:\n%s", len(left), strings.Join(left, "\n"))
	}
	// Connections of tuners that nobody holds are closed by the garbage
	// collector in time: these are held until now, so that only Close
	// can have closed theirs.
	runtime.KeepAlive(tuners)
	if _, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: "off", Store: srv.URL()}); !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("NewTuner after Close: %v, want ErrReleased", err)
	}
}

// TestNoRedis: a program that imports vkbench builds no Redis client; one
// that names a Store imports store/redis, as the vkbench command does.
func TestNoRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("go list in -short")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	deps := func(pkg string) string {
		out, err := exec.Command(gotool, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	const redis = "github.com/redis/go-redis"
	if d := deps("."); strings.Contains(d, redis) || strings.Contains(d, "/store/redis") {
		t.Errorf("vkbench depends on Redis:\n%s", d)
	}
	if d := deps("./cmd/vkbench"); !strings.Contains(d, redis) {
		t.Errorf("the vkbench command does not register the Redis store")
	}
}

// TestTunerLogger: TunerOptions.Logger receives the tuner's records
// too, not only the cache's: at Debug, where a tune's time went, under
// its key.
func TestTunerLogger(t *testing.T) {
	dev := open(t)
	var log strings.Builder
	tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: "off", Budget: 50 * time.Millisecond, Warmup: -1,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Fastest(context.Background(), scaleOp(), 4096); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `msg="autotune: measured" key=`) {
		t.Errorf("the program's logger has no record of the tune:\n%s", log.String())
	}
}

// lockTimeout is the cache file's lock timeout in the library's stores,
// store's default.
const lockTimeout = 5 * time.Second

// TestNewTunerContext: NewTuner's question to a shared store ends when
// its context does, with an error that matches the context's and names
// the store: a store that stopped answering (its process stopped, its
// port open) held NewTuner, which took no context, for the URL's call
// bound (20 s here), then let it go on as if the store were down. A
// context ended already makes nothing. A cache file that another handle
// holds locked does not hold NewTuner: it opens no file.
func TestNewTunerContext(t *testing.T) {
	srv := redistest.Start(t)
	dev := open(t)
	srv.Pause()
	defer srv.Resume()
	// Each returns within a quarter of the store's call bound (20 s here)
	// of its context's end: far above what a busy machine adds.
	newTuner := func(ctx context.Context) error {
		tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: "off", Store: srv.URL()})
		if tu != nil {
			t.Errorf("NewTuner of a store that does not answer made a tuner")
		}
		return err
	}
	testenv.ContextEnd{Within: 5 * time.Second, Names: srv.Addr()}.Check(t, "NewTuner of a store that does not answer", newTuner)
	testenv.ContextEnd{Within: 5 * time.Second, Late: true}.Check(t, "NewTuner, its context ended before", newTuner)

	// A NewTuner that read the file would fail with its context's end
	// or, deaf to it, wait out the lock timeout: a bound of the lock
	// timeout itself fails that and leaves a busy machine all of it,
	// where half of it, from the call's start, left less.
	path := filepath.Join(t.TempDir(), "autotune.db")
	storetest.HoldLock(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: path})
	took := time.Since(start)
	cancel()
	if tu == nil || err != nil || took >= lockTimeout {
		t.Errorf("NewTuner of a cache file another handle holds locked: %v, %v after %v; want a tuner, without waiting out the lock timeout, %v", tu, err, took.Round(time.Millisecond), lockTimeout)
	}
}

// TestFastestContextFileLocked: Fastest and Result end when their context
// does while another handle holds the cache file's lock, with an error
// that matches the context's: they waited for the store's 5 s lock timeout
// before, whatever the context (Result took none). Nothing is written
// meanwhile; once the lock is let go, the next call tunes and stores the
// answer. Each call's time is measured from the test's own wait for its
// context's end, and held to half the lock timeout, where a fixed 2 s
// from the call's start left a busy machine 1.7 s.
func TestFastestContextFileLocked(t *testing.T) {
	dev := open(t)
	path := filepath.Join(t.TempDir(), "autotune.db")
	tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: path, Budget: 50 * time.Millisecond, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	release := storetest.HoldLock(t, path)
	op := scaleOp()
	within := testenv.ContextEnd{Within: lockTimeout / 2}
	within.Check(t, "Fastest with the cache file locked", func(ctx context.Context) error {
		p, err := tu.Fastest(ctx, op, 4096)
		if p != nil {
			t.Errorf("Fastest with the cache file locked answered")
		}
		return err
	})
	within.Check(t, "Result with the cache file locked", func(ctx context.Context) error {
		e, err := tu.Result(ctx, op, 4096)
		if e != nil {
			t.Errorf("Result with the cache file locked: %v; want none", e)
		}
		return err
	})
	release()
	if e, err := tu.Result(t.Context(), op, 4096); e != nil || err != nil {
		t.Errorf("Result after the calls that gave up: %v, %v; want nothing stored", e, err)
	}
	if p, err := tu.Fastest(context.Background(), op, 4096); p == nil || err != nil {
		t.Fatalf("Fastest with the lock let go: %v, %v", p, err)
	}
	if e, err := tu.Result(t.Context(), op, 4096); e == nil || err != nil {
		t.Errorf("Result: %v, %v; want the answer stored", e, err)
	}
}
