package autotune_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	_ "github.com/vkbench/vkbench/store/redis"
)

// machine is one machine of a fleet: its own cache file, the shared
// store at url, and its warnings.
type machine struct {
	cache   *store.Store
	log     *testenv.SyncBuffer
	sampled atomic.Int64 // samples taken: 0 if it measured nothing
}

// warnings counts the warnings logged.
func (m *machine) warnings() int { return strings.Count(m.log.String(), "level=WARN") }

func newMachine(t *testing.T, url string) *machine {
	t.Helper()
	m := &machine{log: &testenv.SyncBuffer{}}
	var err error
	m.cache, err = store.Open(store.Options{Path: filepath.Join(t.TempDir(), "c.db"), LockTimeout: 10 * time.Second,
		Shared: url, Logger: slog.New(slog.NewTextHandler(m.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// options are quick's, counting the samples m takes, with progress
// also told to then (if set).
func (m *machine) options(then func(autotune.Progress)) autotune.Options {
	o := quick
	o.Progress = func(p autotune.Progress) {
		if p.Step == "sample" {
			m.sampled.Add(1)
		}
		if then != nil {
			then(p)
		}
	}
	return o
}

var sharedSizes = []int{1 << 10, 1 << 12, 1 << 14}

// TestSharedSecondMachine: a machine with an empty cache file gets every
// answer from the shared store, measures nothing, and keeps the answers
// in its file.
func TestSharedSecondMachine(t *testing.T) {
	srv := redistest.Start(t)
	dev := devtest.Device(t)
	op := defaultScaleOp()
	ctx := context.Background()
	first := newMachine(t, srv.URL())
	t1 := autotune.NewTuner(dev, first.cache, first.options(nil))
	want := map[int]int{}
	for _, n := range sharedSizes {
		i, err := t1.Fastest(ctx, op, kernels.SizeOf(n))
		if err != nil {
			t.Fatal(err)
		}
		want[n] = i
	}
	second := newMachine(t, srv.URL())
	t2 := autotune.NewTuner(dev, second.cache, second.options(nil))
	for _, n := range sharedSizes {
		i, err := t2.Fastest(ctx, op, kernels.SizeOf(n))
		if err != nil || i != want[n] {
			t.Errorf("second machine, size %d: %d, %v; want %d", n, i, err, want[n])
		}
		// Copied into its own file.
		local := autotune.NewTuner(dev, newCache(t, second.cache.Path()), quick)
		if e, err := local.Stored(t.Context(), op, kernels.SizeOf(n)); e == nil || err != nil {
			t.Errorf("size %d is not in the second machine's file: %v", n, err)
		}
	}
	if n := second.sampled.Load(); n != 0 {
		t.Errorf("the second machine took %d samples, want none", n)
	}
	if first.warnings()+second.warnings() != 0 {
		t.Errorf("warnings:\n%s%s", first.log, second.log)
	}
}

// plant writes e, the answer for op at size n as a machine of hardware
// would look it up, into the shared store at url.
func plant(t *testing.T, url, hardware string, op kernels.Operation, n int, value []byte) {
	t.Helper()
	m := newMachine(t, url)
	k := autotune.NewTuner(devtest.Device(t), m.cache, quick).Key(op, kernels.SizeOf(n))
	table := store.Table{Hardware: hardware, Tuner: "builtin"}
	key := []byte(k.String() + "@" + autotune.Checksum(op.Candidates()))
	if err := m.cache.Shared().Update(context.Background(), table, func(r store.Rows) error { return r.Put(key, value) }); err != nil {
		t.Fatal(err)
	}
}

// answerNaming is an answer as another vkbench would write it, whose
// winner is the candidate named, of digest digest.
func answerNaming(t *testing.T, op kernels.Operation, name, digest string) []byte {
	t.Helper()
	names := make([]string, len(op.Candidates()))
	fastest := 0
	for i, c := range op.Candidates() {
		names[i] = c.Name
		if c.Name == name {
			fastest = i
		}
	}
	e := entry(fastest, names...)
	e.Schema, e.Key, e.FastestDigest = store.SchemaVersion, "scale/f32/1024", digest
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func digestOf(c kernels.Candidate) string {
	d := kernels.Digest([]kernels.Candidate{c})
	return hex.EncodeToString(d[:])
}

// TestSharedUntrusted: answers in the shared store that must not be used
// are not: a value vkbench did not write, one naming a kernel this
// machine does not have, one naming a candidate that computes wrongly
// here, one of another driver version. Each is tuned here instead, with
// the right answer, and a warning for the first three.
func TestSharedUntrusted(t *testing.T) {
	op := defaultScaleOp()
	hw := devtest.Device(t).Info().Hardware()
	for _, c := range []struct {
		name     string
		hardware string
		value    []byte
		warning  string
	}{
		{"garbage", hw, []byte("not what vkbench wrote"), "unreadable"},
		{"unknown-digest", hw, answerNaming(t, op, "spin", strings.Repeat("0f", 32)), "none of this machine's candidates"},
		{"wrong-result", hw, answerNaming(t, op, "wrong", digestOf(op.cands[2])), "failed on this device"},
		{"other-driver", hw + "-other", answerNaming(t, op, "spin", digestOf(op.cands[0])), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			plant(t, srv.URL(), c.hardware, op, 1<<10, c.value)
			m := newMachine(t, srv.URL())
			i, err := autotune.NewTuner(devtest.Device(t), m.cache, m.options(nil)).Fastest(context.Background(), op, kernels.SizeOf(1<<10))
			if err != nil || op.cands[i].Name != "wg64" {
				t.Fatalf("Fastest = %d, %v; want wg64, tuned here", i, err)
			}
			if m.sampled.Load() == 0 {
				t.Error("it was not tuned here")
			}
			wantWarnings := 0
			switch c.name {
			case "garbage":
				wantWarnings = 2 // and then that this machine's answer replaced it
			case "other-driver":
			default:
				wantWarnings = 1
			}
			if m.warnings() != wantWarnings || !strings.Contains(m.log.String(), c.warning) {
				t.Errorf("warnings, want %d saying %q:\n%s", wantWarnings, c.warning, m.log)
			}
		})
	}
}

// TestSharedFailures: a shared store down, paused, stopped in the middle
// of a tune or restarted empty costs one warning; the answer is tuned
// here and kept in the local file, and nothing waits past the store's
// timeouts. (A store that refuses the password is store.Open's error.)
func TestSharedFailures(t *testing.T) {
	for _, c := range []struct {
		name    string
		url     func(*redistest.Server) string
		before  func(*redistest.Server)
		midTune func(*redistest.Server)
	}{
		{"down", (*redistest.Server).DefaultURL, (*redistest.Server).Stop, nil},
		{"paused", (*redistest.Server).DefaultURL, (*redistest.Server).Pause, nil},
		{"stopped-mid-tune", (*redistest.Server).DefaultURL, nil, (*redistest.Server).Stop},
		{"paused-mid-tune", (*redistest.Server).DefaultURL, nil, (*redistest.Server).Pause},
		{"restarted-mid-tune", (*redistest.Server).DefaultURL, nil, (*redistest.Server).Restart},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			if c.before != nil {
				c.before(srv)
			}
			m := newMachine(t, c.url(srv))
			var once sync.Once
			opts := m.options(func(p autotune.Progress) {
				if p.Step == "sample" && c.midTune != nil {
					once.Do(func() { c.midTune(srv) })
				}
			})
			tuner := autotune.NewTuner(devtest.Device(t), m.cache, opts)
			op := defaultScaleOp()
			for _, n := range sharedSizes {
				// A candidate that computes correctly, measured here: which
				// one is timing (a redis-server restarting on a busy
				// two-core runner once slowed wg64's samples past spin's).
				i, err := tuner.Fastest(context.Background(), op, kernels.SizeOf(n))
				if err != nil || (op.cands[i].Name != "wg64" && op.cands[i].Name != "spin") {
					t.Fatalf("size %d: Fastest = %d, %v; want wg64 or spin", n, i, err)
				}
				local := autotune.NewTuner(devtest.Device(t), newCache(t, m.cache.Path()), quick)
				if e, err := local.Stored(t.Context(), op, kernels.SizeOf(n)); e == nil || err != nil {
					t.Errorf("size %d is not in the local file: %v", n, err)
				}
			}
			srv.Resume()
			n := m.warnings()
			if c.name == "restarted-mid-tune" && n == 0 {
				// Back at once, empty: the commit may reach it without a
				// failure. Nothing was lost on the way: it has the answers.
				for _, size := range sharedSizes {
					if e, err := autotune.NewTuner(devtest.Device(t), m.cache.Shared(), quick).Stored(t.Context(), op, kernels.SizeOf(size)); e == nil || err != nil {
						t.Errorf("the restarted store lacks size %d without a warning: %v", size, err)
					}
				}
				return
			}
			if n != 1 || !strings.Contains(m.log.String(), "working from the local file only") {
				t.Errorf("%d warnings, want 1:\n%s", n, m.log)
			}
		})
	}
}

// TestSharedOneTunePerQuestion: 8 processes, each a machine with its
// own empty cache file, ask one uncached question at once: exactly one
// tunes it, and every one gets its answer.
func TestSharedOneTunePerQuestion(t *testing.T) {
	oneTunePerQuestion(t, func() string { return redistest.Start(t).URL() }, true)
}

// TestFileOneTunePerQuestion: 8 processes of one machine, with no shared
// store, share one empty cache file and ask one uncached question at
// once: exactly one tunes it (the file's lock), and every one gets its
// answer.
func TestFileOneTunePerQuestion(t *testing.T) {
	oneTunePerQuestion(t, func() string { return "" }, false)
}

// TestFileOneTunePerQuestionStoreDown: as TestFileOneTunePerQuestion,
// but each process is also told of a shared store that does not answer
// (stopped): its lock failing, the processes take the file's, and one
// tunes.
func TestFileOneTunePerQuestionStoreDown(t *testing.T) {
	oneTunePerQuestion(t, func() string {
		srv := redistest.Start(t)
		srv.Stop()
		return srv.URL()
	}, false)
}

// oneTunePerQuestion runs 8 children of t's test (sharedChild, which it
// is in a child) at once, with the shared store url gives ("" for none)
// and a cache file each (ownFiles) or one for all, and checks that
// exactly one tuned and that all got the same answer.
func oneTunePerQuestion(t *testing.T, url func() string, ownFiles bool) {
	if os.Getenv("VKBENCH_SHARED_CHILD") != "" {
		sharedChild(t)
		return
	}
	devtest.NeedVulkan(t)
	const procs = 8
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	envs := make([][]string, procs)
	u, dir, ready := url(), t.TempDir(), t.TempDir()
	for p := range procs {
		if ownFiles {
			dir = t.TempDir()
		}
		envs[p] = append(os.Environ(), "VKBENCH_SHARED_CHILD=ask", "VKBENCH_SHARED_URL="+u, "VKBENCH_SHARED_DIR="+dir,
			"VKBENCH_SHARED_READY="+ready, fmt.Sprint("VKBENCH_SHARED_PROCS=", procs))
	}
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
			cmd.Env = envs[p]
			outs[p], errs[p] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	tuned := 0
	answers := map[string]int{}
	for p := range procs {
		if errs[p] != nil {
			t.Fatalf("process %d: %v\n%s", p, errs[p], outs[p])
		}
		var fastest, sampled int
		var when string
		line := answerLine(outs[p])
		if _, err := fmt.Sscanf(line, "answer %d %s sampled=%d", &fastest, &when, &sampled); err != nil {
			t.Fatalf("process %d: %q: %v\n%s", p, line, err, outs[p])
		}
		if sampled > 0 {
			tuned++
		}
		answers[fmt.Sprint(fastest, " ", when)]++
	}
	if tuned != 1 || len(answers) != 1 {
		t.Errorf("%d processes tuned, and they got %d answers (%v); want 1 and 1", tuned, len(answers), answers)
	}
}

// answerLine is the line of a child's output that starts "answer ".
func answerLine(out []byte) string {
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "answer ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// sharedChild is one machine of a test's fleet: it tunes scale at 1<<14
// with the shared store $VKBENCH_SHARED_URL (none where unset) and the
// cache file in $VKBENCH_SHARED_DIR, and prints "answer <fastest> <time measured>
// sampled=<samples it took>". As VKBENCH_SHARED_CHILD=hold it first
// prints "sampling" when it starts to sample, and samples for long.
func sharedChild(t *testing.T) {
	m := &machine{log: &testenv.SyncBuffer{}}
	var err error
	m.cache, err = store.Open(store.Options{Path: filepath.Join(os.Getenv("VKBENCH_SHARED_DIR"), "c.db"), Shared: os.Getenv("VKBENCH_SHARED_URL")})
	if err != nil {
		t.Fatal(err)
	}
	hold := os.Getenv("VKBENCH_SHARED_CHILD") == "hold"
	var once sync.Once
	opts := m.options(func(p autotune.Progress) {
		if hold && p.Step == "sample" {
			once.Do(func() { fmt.Println("sampling") })
		}
	})
	if hold {
		opts.Budget, opts.TargetHalfWidth, opts.MaxSamples = time.Minute, 1e-9, 1<<20
	}
	dev := devtest.Device(t)
	if ready := os.Getenv("VKBENCH_SHARED_READY"); ready != "" {
		// Ask at once, all of them: a busy machine starts processes
		// seconds apart, and a question answered before the last one
		// starts proves nothing of the lock.
		if err := os.WriteFile(filepath.Join(ready, fmt.Sprint(os.Getpid())), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			if ents, _ := os.ReadDir(ready); fmt.Sprint(len(ents)) == os.Getenv("VKBENCH_SHARED_PROCS") {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("%d of %s processes ready after a minute", len(ents), os.Getenv("VKBENCH_SHARED_PROCS"))
			}
		}
	}
	e, err := autotune.NewTuner(dev, m.cache, opts).Tune(context.Background(), defaultScaleOp(), kernels.SizeOf(1<<14), false)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("answer %d %s sampled=%d\n", e.Fastest, e.Time.Format(time.RFC3339Nano), m.sampled.Load())
}

// TestSharedLockHolderKilled: the process tuning a question is killed
// (SIGKILL) while it holds the question's lock, and a runner started
// again on the same host asks it at once: the dead process's lock is
// taken over (told to Progress, naming it, and to the log), not waited
// for until it expires (the default 30 s), and the question is tuned.
func TestSharedLockHolderKilled(t *testing.T) {
	if os.Getenv("VKBENCH_SHARED_CHILD") != "" {
		sharedChild(t)
		return
	}
	srv := redistest.Start(t)
	url := srv.URL() // the lock's default expiry: no wait of the test ends at it
	cmd := exec.Command(os.Args[0], "-test.run=^TestSharedLockHolderKilled$")
	cmd.Env = append(os.Environ(), "VKBENCH_SHARED_CHILD=hold", "VKBENCH_SHARED_URL="+url, "VKBENCH_SHARED_DIR="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "sampling" {
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: its status says so
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("%s pid %d", host, cmd.Process.Pid)
	m := newMachine(t, url)
	var mu sync.Mutex
	var steps []string
	opts := m.options(func(p autotune.Progress) {
		if p.Step != "sample" && p.Step != "verify" && p.Step != "done" {
			mu.Lock()
			steps = append(steps, p.Step+" "+p.Holder)
			mu.Unlock()
		}
	})
	opts.Logger = slog.New(slog.NewTextHandler(m.log, nil))
	t0 := time.Now()
	e, err := autotune.NewTuner(devtest.Device(t), m.cache, opts).Tune(context.Background(), defaultScaleOp(), kernels.SizeOf(1<<14), false)
	if err != nil || e.FastestName != "wg64" {
		t.Fatalf("Tune after the holder died = %+v, %v", e, err)
	}
	t.Logf("the restarted runner's tune took %v", time.Since(t0).Round(time.Millisecond))
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"took over " + dead}, steps); diff != "" {
		t.Errorf("the steps told besides measuring (-want +got): the dead holder's lock taken over at once, no wait\n%s", diff)
	}
	if !strings.Contains(m.log.String(), "took over the lock") || !strings.Contains(m.log.String(), dead) {
		t.Errorf("the log does not say that the lock of %s was taken over:\n%s", dead, m.log)
	}
	if m.sampled.Load() == 0 || m.warnings() != 0 {
		t.Errorf("it took %d samples, with warnings:\n%s", m.sampled.Load(), m.log)
	}
	// The answer is the fleet's now.
	if got, err := autotune.NewTuner(devtest.Device(t), m.cache.Shared(), quick).Stored(t.Context(), defaultScaleOp(), kernels.SizeOf(1<<14)); got == nil || err != nil {
		t.Errorf("the shared store has no answer: %v", err)
	}
}

// TestSharedFastestOrDefault: while another machine holds a question's
// lock, FastestOrDefault does not wait for its tune: it answers the
// default candidate, pending, and measures nothing, while its own tune
// waits in the background for the lock; once the lock is released, that
// tune measures here, and Fastest waits for it.
func TestSharedFastestOrDefault(t *testing.T) {
	srv := redistest.Start(t)
	op := defaultScaleOp()
	size := kernels.SizeOf(1 << 12)
	m := newMachine(t, srv.URL())
	tuner := autotune.NewTuner(devtest.Device(t), m.cache, m.options(nil))
	other := newMachine(t, srv.URL())
	lease, _, err := other.cache.Shared().TryLock(context.Background(), tuner.Table().String()+"/"+tuner.Key(op, size).String()+"@"+autotune.Checksum(op.Candidates()))
	if err != nil || lease == nil {
		t.Fatalf("TryLock = %v, %v", lease, err)
	}
	if i, pending, err := tuner.FastestOrDefault(context.Background(), op, size); i != 0 || !pending || err != nil || m.sampled.Load() != 0 {
		t.Errorf("while another tunes: %d, pending %v, %v, %d samples; want 0, pending, nothing measured", i, pending, err, m.sampled.Load())
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	if i, err := tuner.Fastest(context.Background(), op, size); op.cands[i].Name != "wg64" || err != nil || m.sampled.Load() == 0 {
		t.Errorf("after the release: %d, %v; want wg64, tuned here", i, err)
	}
}

// lockKey is the name of the shared store's lock that a tuner takes to
// tune op at size, or with space to search op's space there.
func lockKey(t *testing.T, tuner *autotune.Tuner, dev hal.Device, op kernels.Operation, size kernels.Size, space bool) string {
	t.Helper()
	k, cands := tuner.Key(op, size), op.Candidates()
	if space {
		pts, err := kernels.SpaceOf(op).Points(op.Dims(), k.Size, dev.Info())
		if err != nil {
			t.Fatal(err)
		}
		k.Op, cands = op.Name()+autotune.SpaceSuffix, pts.Op.Candidates()
	}
	return tuner.Table().String() + "/" + k.String() + "@" + autotune.Checksum(cands)
}

// TestSharedCancelledWhileWaiting: a tune, a forced tune, a search and a
// forced search whose context ends while they wait for another machine's
// lock return at once with the context's code (Cancelled, or
// DeadlineExceeded for a timeout), saying what they waited for. They
// build, measure and store nothing, and the other machine keeps its lock.
// A timeout that passes before the wait begins (on a busy host, or while
// the local file is locked) ends the call at once with its code too, and
// is tried again with a longer one: the test never waits for a wait that
// is not coming.
func TestSharedCancelledWhileWaiting(t *testing.T) {
	for _, c := range []struct {
		name          string
		search, force bool
		timeout       time.Duration // else cancelled once the wait begins
		// late: the tuner is held up until its first timeout passes, as
		// on a busy host (the local file is locked till then), so that
		// it ends without waiting and is asked again.
		late bool
	}{
		{name: "tune"},
		{name: "tune-timeout", timeout: 300 * time.Millisecond},
		{name: "tune-timeout-late", timeout: 300 * time.Millisecond, late: true},
		{name: "forced-tune", force: true},
		{name: "search", search: true},
		{name: "forced-search", search: true, force: true},
		{name: "search-timeout", search: true, timeout: 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			url := srv.URL() + "&lock-wait=10m" // not what ends the wait
			var op kernels.Operation = defaultScaleOp()
			if c.search {
				op = newSpaceScaleOp([]int{32, 64}, 0)
			}
			size := kernels.SizeOf(1 << 14)
			m := newMachine(t, url)
			dev := &buildCounter{Device: devtest.Device(t)}
			began := make(chan struct{})
			var once sync.Once
			tuner := autotune.NewTuner(dev, m.cache, m.options(func(p autotune.Progress) {
				if p.Step == "wait" {
					once.Do(func() { close(began) })
				}
			}))
			name := lockKey(t, tuner, dev, op, size, c.search)
			other := newMachine(t, url)
			lease, _, err := other.cache.Shared().TryLock(context.Background(), name)
			if err != nil || lease == nil {
				t.Fatalf("TryLock = %v, %v", lease, err)
			}
			defer func() { _ = lease.Release() }() // checked below
			want, key := status.Cancelled, tuner.Key(op, size).String()
			if c.timeout > 0 {
				want = status.DeadlineExceeded
			}
			// ask asks in the background, under a context that ends after
			// timeout, or when cancelled (timeout 0).
			ask := func(timeout time.Duration) (context.Context, context.CancelFunc, chan error) {
				ctx, cancel := context.WithCancel(context.Background())
				if timeout > 0 {
					ctx, cancel = context.WithTimeout(context.Background(), timeout)
				}
				done := make(chan error, 1)
				go func() {
					var err error
					switch {
					case c.search:
						opts := exhaustive
						opts.Force = c.force
						_, err = tuner.Search(ctx, op, size, opts)
					case c.force:
						_, err = tuner.Tune(ctx, op, size, true)
					default:
						_, err = tuner.Fastest(ctx, op, size)
					}
					done <- err
				}()
				return ctx, cancel, done
			}
			// A timeout tests the wait only if it ends it. On a busy host it
			// can pass before the wait begins (before the read of the local
			// file, or the first question to the server, returns): the
			// tuner then ends at once with the deadline's code, having
			// waited for nothing, and is asked again with twice the
			// timeout, so that what is tested does not depend on how busy
			// the host is. Everything the tries measured or stored is
			// counted below.
			var ctx context.Context
			var cancel context.CancelFunc
			var done chan error
			tries := 0
			for timeout := c.timeout; ; timeout *= 2 {
				tries++
				var held *bolt.DB
				if c.late && tries == 1 {
					// bbolt holds the file's exclusive lock while open:
					// the tuner's first read of it waits.
					if held, err = bolt.Open(m.cache.Path(), 0o644, nil); err != nil {
						t.Fatal(err)
					}
				}
				ctx, cancel, done = ask(timeout)
				defer cancel()
				if held != nil {
					go func(ctx context.Context) {
						<-ctx.Done()
						_ = held.Close() // its error is no matter: the file is read next
					}(ctx)
				}
				select {
				case <-began:
				case err := <-done:
					select {
					case <-began: // told before it returned: it waited, and its wait ended too
						done <- err
					default:
						if timeout == 0 || status.CodeOf(err) != want || timeout >= 16*c.timeout {
							t.Fatalf("it ended before it waited for the other machine's lock (context %v): %v (%v); want a wait, ended by its context", timeout, err, status.CodeOf(err))
						}
						t.Logf("its %v deadline passed before its wait began (%v); asking again with %v", timeout, err, 2*timeout)
						continue
					}
				}
				break
			}
			if c.late && tries == 1 {
				t.Errorf("it waited for the lock, though its deadline passed while it read the local file; want it ended, and asked again")
			}
			if c.timeout == 0 {
				cancel()
			}
			<-ctx.Done()
			ended := time.Now()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("still waiting 30 s after its context ended")
			}
			// The wait, unended, lasts lock-wait (10 min); 10 s is far
			// below it and far above what a busy machine adds to a
			// return at once (2 s was not, at a load of 20).
			if took := time.Since(ended); took > 10*time.Second {
				t.Errorf("returned %v after its context ended; want at once, not after the 10 min lock-wait", took)
			}
			if c.search {
				key = autotune.Key{Op: op.Name() + autotune.SpaceSuffix, DType: op.DType().String(), Size: size}.String()
			}
			if status.CodeOf(err) != want || !strings.Contains(err.Error(), "waiting for another machine's work on "+key) {
				t.Errorf("err = %v (%v); want %v, saying it waited for another machine's work on %s", err, status.CodeOf(err), want, key)
			}
			prepared := int64(0)
			if !c.search {
				prepared = op.(*scaleOp).prepares.Load()
			}
			if built := dev.names(); len(built) != 0 || m.sampled.Load() != 0 || prepared != 0 {
				t.Errorf("it prepared %d problems, built %q and took %d samples; want nothing measured", prepared, built, m.sampled.Load())
			}
			if l, _, err := newMachine(t, url).cache.Shared().TryLock(context.Background(), name); l != nil || err != nil {
				if l != nil {
					_ = l.Release()
				}
				t.Errorf("the lock could be taken after the wait was cancelled (%v); want it still the other machine's", err)
			}
			for _, s := range []*store.Store{m.cache, m.cache.Shared()} {
				tables, err := s.Tables(t.Context())
				logs, lerr := s.TuneLogs(t.Context())
				if len(tables)+len(logs) != 0 || err != nil || lerr != nil {
					t.Errorf("%s holds tables %v and tuning logs %v (%v, %v); want nothing stored", s.Path(), tables, logs, err, lerr)
				}
			}
		})
	}
}

// parkedIn reports whether a goroutine is blocked in a select whose
// innermost function is fn: a caller parked where no callback can say
// so.
func parkedIn(fn string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		header, frame, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[select") && strings.HasPrefix(frame, fn+"(") {
			return true
		}
	}
	return false
}

// TestSharedJoinedTune: a Fastest waits for another machine's lock, and
// a Tune of the same key and tuner joins it. Joining, a forced Tune does
// not return the answer the Fastest takes from the shared store, which
// the force was asked to replace: it waits for the Fastest, then
// measures afresh under the lock. An unforced Tune is not ended by the
// Fastest's context ending: it waits on, and takes the answer once it
// lands.
func TestSharedJoinedTune(t *testing.T) {
	for _, force := range []bool{true, false} {
		t.Run(map[bool]string{true: "forced", false: "first-cancelled"}[force], func(t *testing.T) {
			srv := redistest.Start(t)
			op := defaultScaleOp()
			size := kernels.SizeOf(1 << 10)
			m := newMachine(t, srv.URL())
			began := make(chan struct{})
			var once sync.Once
			dev := devtest.Device(t)
			tuner := autotune.NewTuner(dev, m.cache, m.options(func(p autotune.Progress) {
				if p.Step == "wait" {
					once.Do(func() { close(began) })
				}
			}))
			lease, _, err := newMachine(t, srv.URL()).cache.Shared().TryLock(context.Background(), lockKey(t, tuner, dev, op, size, false))
			if err != nil || lease == nil {
				t.Fatalf("TryLock = %v, %v", lease, err)
			}
			defer func() { _ = lease.Release() }() // released below
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := make(chan error, 1)
			go func() {
				_, err := tuner.Fastest(ctx, op, size)
				first <- err
			}()
			<-began
			joined := make(chan tuned, 1)
			go func() {
				e, err := tuner.Tune(context.Background(), op, size, force)
				joined <- tuned{e, err}
			}()
			until(t, func() bool { return parkedIn("github.com/vkbench/vkbench/autotune.(*Tuner).tune") }, joined, "the Tune joined the Fastest")
			if !force {
				cancel()
				if err := <-first; status.CodeOf(err) != status.Cancelled {
					t.Fatalf("the cancelled Fastest: %v; want Cancelled", err)
				}
			}
			// The other machine's answer lands, and its lock is released.
			plant(t, srv.URL(), dev.Info().Hardware(), op, size.Dim(0), answerNaming(t, op, "spin", digestOf(op.cands[0])))
			if err := lease.Release(); err != nil {
				t.Fatal(err)
			}
			if force {
				if err := <-first; err != nil {
					t.Fatal(err)
				}
			}
			r := <-joined
			switch {
			case r.err != nil:
				t.Errorf("the joined Tune: %v", r.err)
			case force && (r.e.From != "" || r.e.FastestName != "wg64" || m.sampled.Load() == 0):
				t.Errorf("the forced Tune: from %q, winner %s, %d samples; want wg64 measured afresh", r.e.From, r.e.FastestName, m.sampled.Load())
			case !force && (r.e.From != autotune.FromShared || r.e.FastestName != "spin" || m.sampled.Load() != 0):
				t.Errorf("the Tune: from %q, winner %s, %d samples; want spin from the shared store, nothing measured", r.e.From, r.e.FastestName, m.sampled.Load())
			}
		})
	}
}

// cancelOnBuild cancels a context when the device builds its first
// executable: a Ctrl-C while a shared answer is verified.
type cancelOnBuild struct {
	hal.Device
	cancel context.CancelFunc
}

func (d cancelOnBuild) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	d.cancel()
	return d.Device.CreateExecutable(desc)
}

// TestSharedVerifyCancelled: a context that ends while the shared store's
// answer is verified on this device is the caller's error, of its code;
// the answer is not called one that failed here, nothing is measured or
// stored, and the lock is left free. A context that ended before the call
// takes no free lock.
func TestSharedVerifyCancelled(t *testing.T) {
	srv := redistest.Start(t)
	dev := devtest.Device(t)
	op := defaultScaleOp()
	size := kernels.SizeOf(1 << 14)
	first := newMachine(t, srv.URL())
	if _, err := autotune.NewTuner(dev, first.cache, first.options(nil)).Fastest(context.Background(), op, size); err != nil {
		t.Fatal(err)
	}
	second := newMachine(t, srv.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tuner := autotune.NewTuner(cancelOnBuild{Device: dev, cancel: cancel}, second.cache, second.options(nil))
	name := lockKey(t, tuner, dev, op, size, false)
	_, err := tuner.Fastest(ctx, op, size)
	if status.CodeOf(err) != status.Cancelled || !strings.Contains(err.Error(), "verifying the shared store's answer") {
		t.Errorf("err = %v (%v); want Cancelled, while verifying the shared store's answer", err, status.CodeOf(err))
	}
	if strings.Contains(second.log.String(), "failed on this device") || second.sampled.Load() != 0 {
		t.Errorf("took %d samples; log:\n%s\nwant none, and no answer called failed", second.sampled.Load(), second.log)
	}
	if e, err := autotune.NewTuner(dev, newCache(t, second.cache.Path()), quick).Stored(t.Context(), op, size); e != nil || err != nil {
		t.Errorf("the local file holds %+v (%v); want nothing stored", e, err)
	}
	free := func(name string) {
		t.Helper()
		l, _, err := newMachine(t, srv.URL()).cache.Shared().TryLock(context.Background(), name)
		if l == nil || err != nil {
			t.Errorf("the lock %s could not be taken after a cancelled call (%v); want it free", name, err)
			return
		}
		_ = l.Release()
	}
	free(name)

	// Cancelled before the call, with no answer anywhere: nothing is
	// prepared or built, and no lock taken.
	third := newMachine(t, srv.URL())
	other := kernels.SizeOf(1 << 12)
	name = lockKey(t, tuner, dev, op, other, false)
	counter := &buildCounter{Device: dev}
	prepared := op.prepares.Load()
	_, err = autotune.NewTuner(counter, third.cache, third.options(nil)).Fastest(ctx, op, other)
	if status.CodeOf(err) != status.Cancelled {
		t.Errorf("already cancelled: err = %v (%v); want Cancelled", err, status.CodeOf(err))
	}
	if built := counter.names(); len(built) != 0 || op.prepares.Load() != prepared {
		t.Errorf("already cancelled: built %q, prepared %d problems; want nothing", built, op.prepares.Load()-prepared)
	}
	free(name)
}

// TestFileWaitEndsWithTheDevice: a Fastest waiting for another process's
// tune of its key (the cache file's lock, held here through a second
// store of the file) ends once its device is released, as a Device's
// Close releases it, with an error matching ErrReleased: not after the
// lock wait of 10 minutes, and having measured nothing.
func TestFileWaitEndsWithTheDevice(t *testing.T) {
	dev := devtest.Device(t)
	path := filepath.Join(t.TempDir(), "c.db")
	op, size := defaultScaleOp(), kernels.SizeOf(1<<14)
	began := make(chan struct{})
	var once sync.Once
	opts := quick
	opts.Progress = func(p autotune.Progress) {
		if p.Step == "wait" {
			once.Do(func() { close(began) })
		}
	}
	tuner := autotune.NewTuner(dev, newCache(t, path), opts)
	lease, _, err := newCache(t, path).TryLock(context.Background(), lockKey(t, tuner, dev, op, size, false))
	if err != nil || lease == nil {
		t.Fatalf("TryLock = %v, %v", lease, err)
	}
	defer func() { _ = lease.Release() }()
	done := make(chan error, 1)
	go func() {
		_, err := tuner.Fastest(context.Background(), op, size)
		done <- err
	}()
	select {
	case <-began:
	case err := <-done:
		t.Fatalf("Fastest = %v without waiting for the lock", err)
	}
	if err := dev.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, hal.ErrReleased) || !strings.Contains(err.Error(), "waiting for another process's work on") {
			t.Errorf("Fastest after the device's release = %v; want ErrReleased, saying what it waited for", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Fastest still waits for the lock 10 s after its device was released")
	}
	if n := op.prepares.Load(); n != 0 {
		t.Errorf("%d problems prepared; want none", n)
	}
}
