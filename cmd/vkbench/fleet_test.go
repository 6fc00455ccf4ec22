package main

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/store"
)

// TestFleet: two jobs of a job array (--shard 0/2 and 1/2), each with a
// cache file of its own and one --store, tune the operations between
// them; a third machine with an empty file answers every one from the
// store, with the numbers the shards measured; cache ls and show say
// which tier holds each answer. A store that refuses the password is bad
// usage, said before any tuning; one that is down is one warning, and the
// tune succeeds from the file.
func TestFleet(t *testing.T) {
	needDevice(t)
	srv := redistest.Start(t)
	dir := t.TempDir()
	tune := func(cache string, extra ...string) result {
		a := []string{"tune", "copy", "triad", "reduce", "--size", "4096", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6",
			"--quiet", "--format", "json", "--store", srv.URL(), "--cache", filepath.Join(dir, cache)}
		return mustRun(t, 0, append(a, extra...)...)
	}
	medians := func(rs ...result) map[string]float64 {
		out := map[string]float64{}
		for _, r := range rs {
			f, err := results.Parse([]byte(r.stdout))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range f.Benchmarks {
				if b.Stats != nil {
					out[b.Name] = b.Stats.Median
				}
			}
		}
		return out
	}
	shard0, shard1 := tune("0.db", "--shard", "0/2"), tune("1.db", "--shard", "1/2")
	if !strings.Contains(shard0.stderr, "shard 0/2: 2 of 3 operations: copy, reduce") || !strings.Contains(shard1.stderr, "shard 1/2: 1 of 3 operations: triad") {
		t.Errorf("the shards do not say their share:\n%s%s", shard0.stderr, shard1.stderr)
	}
	third := tune("2.db")
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"copy/u32/4096", "triad/f32/4096", "reduce/f32/4096"} {
		// The tier that answered, named, without the password.
		want := regexp.MustCompile("(?m)^" + regexp.QuoteMeta(key+": answered from the shared store "+u.Redacted()+" (tuned ") +
			`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, verified on this device\); --force measures again$`)
		if !want.MatchString(third.stderr) {
			t.Errorf("%s was not answered from the store, or does not say so as %s:\n%s", key, want, third.stderr)
		}
	}
	// Again, from the file the third machine copied them into, which -v
	// logs too.
	again := tune("2.db", "-v")
	for _, key := range []string{"copy/u32/4096", "triad/f32/4096", "reduce/f32/4096"} {
		if !strings.Contains(again.stderr, key+": answered from the local tune cache "+filepath.Join(dir, "2.db")+" (tuned ") ||
			!strings.Contains(again.stderr, `msg="autotune: answered from the local file" key=`+key+" from="+filepath.Join(dir, "2.db")) {
			t.Errorf("%s was not answered from the local file, or does not say so:\n%s", key, again.stderr)
		}
	}
	if diff := cmp.Diff(medians(shard0, shard1), medians(third)); diff != "" {
		t.Errorf("the third machine's numbers are not the shards' (-shards +third):\n%s", diff)
	}

	ls := mustRun(t, 0, "cache", "ls", "--cache", filepath.Join(dir, "2.db"), "--store", srv.URL())
	for _, want := range []string{"(3 entries, local)", "(3 entries, shared)"} {
		if !strings.Contains(ls.stdout, want) {
			t.Errorf("cache ls does not say %q:\n%s", want, ls.stdout)
		}
	}
	show := mustRun(t, 0, "cache", "show", "triad/f32/4096", "--cache", filepath.Join(dir, "1.db"), "--store", srv.URL())
	if got := strings.Count(show.stdout, "triad/f32/4096 in "); got != 2 || !strings.Contains(show.stdout, "(local)") || !strings.Contains(show.stdout, "(shared)") {
		t.Errorf("cache show does not show the answer in both tiers:\n%s", show.stdout)
	}

	lone := []string{"tune", "copy", "--size", "8192", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", filepath.Join(dir, "3.db"), "--store"}
	wrong, _ := url.Parse(strings.Replace(srv.DefaultURL(), redistest.Password, "wrong", 1))
	r := mustRun(t, exitUsage, append(lone, wrong.String())...)
	if r.stderr != "vkbench: store: shared store "+wrong.Redacted()+" refused this process (a configuration to fix): store/redis: refused the credentials; check the user and password (the URL's, else $VKBENCH_STORE_PASSWORD): WRONGPASS invalid username-password pair or user is disabled.\n" {
		t.Errorf("a refused password: want one error naming the store without the password, and nothing tuned:\n%s", r.stderr)
	}
	srv.Stop()
	r = mustRun(t, 0, append(lone, srv.DefaultURL())...)
	warnings := slices.DeleteFunc(strings.Split(r.stderr, "\n"), func(l string) bool { return !strings.Contains(l, "warning") })
	if len(warnings) != 1 || !strings.Contains(warnings[0], "working from the local file only") {
		t.Errorf("a store down: want one warning:\n%s", r.stderr)
	}

	for _, bad := range []string{"2/2", "-1/2", "0/0", "1", "a/b", "01/2"} {
		mustRun(t, 2, "tune", "copy", "--shard", bad, "--cache", "off")
	}
}

// TestFleetSearch: a search's answer goes to the shared store too, and a
// second machine with an empty file takes it from there without
// searching, and says so.
func TestFleetSearch(t *testing.T) {
	needDevice(t)
	srv := redistest.Start(t)
	dir := t.TempDir()
	search := func(cache string) result {
		return mustRun(t, 0, "tune", "gemm", "--strategy", "random", "--max-evals", "2", "--size", "64x64x64", "--budget", "200ms",
			"--min-samples", "6", "--max-samples", "6", "--quiet", "--store", srv.URL(), "--cache", filepath.Join(dir, cache))
	}
	first := search("0.db")
	if !strings.Contains(first.stderr, "gemm.space/f32/64x64x64: searched gemm's space with random") {
		t.Fatalf("the first machine did not search:\n%s", first.stderr)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	second := search("1.db")
	want := "gemm.space/f32/64x64x64: answered from the shared store " + u.Redacted() + " (tuned "
	if !strings.Contains(second.stderr, want) || strings.Contains(second.stderr, "searched") {
		t.Errorf("the second machine searched, or does not say %q:\n%s", want, second.stderr)
	}
}

// TestFleetCacheClear: cache clear clears the local file only, even with
// --store, and says so and that the shared store is left; with --shared
// it clears both tiers, every table or one, and names each; --shared
// without a store is bad usage.
func TestFleetCacheClear(t *testing.T) {
	info := needDevice(t)
	srv := redistest.Start(t)
	dir := t.TempDir()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	local, shared := filepath.Join(dir, "a.db"), u.Redacted()
	tune := func(cache string) result {
		return mustRun(t, 0, "tune", "copy", "--size", "4096", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6",
			"--quiet", "--store", srv.URL(), "--cache", filepath.Join(dir, cache))
	}
	ls := func() string {
		return mustRun(t, 0, "cache", "ls", "--cache", local, "--store", srv.URL()).stdout
	}
	tune("a.db")
	r := mustRun(t, 0, "cache", "clear", "--cache", local, "--store", srv.URL())
	if want := "cleared every table of the local tune cache " + local + "\nthe shared store " + shared + " is left as it is (--shared clears it too)\n"; r.stderr != want {
		t.Errorf("cache clear --store says:\n%s\nwant:\n%s", r.stderr, want)
	}
	if l := ls(); strings.Contains(l, "local)") || !strings.Contains(l, "(1 entry, shared)") {
		t.Errorf("after clearing the local file, cache ls:\n%s", l)
	}
	if r := mustRun(t, exitUsage, "cache", "clear", "--shared", "--cache", local, "--store", ""); !strings.Contains(r.stderr, "--shared clears the shared store: name it with --store") {
		t.Errorf("--shared without a store: %s", r.stderr)
	}

	r = mustRun(t, 0, "cache", "clear", "--shared", "--cache", local, "--store", srv.URL())
	if want := "cleared every table of the local tune cache " + local + "\ncleared every table of the shared store " + shared + "\n"; r.stderr != want {
		t.Errorf("cache clear --shared says:\n%s\nwant:\n%s", r.stderr, want)
	}
	if l := strings.TrimSpace(ls()); l != "the cache is empty" {
		t.Errorf("after clearing both tiers, cache ls:\n%s", l)
	}
	if r := tune("b.db"); strings.Contains(r.stderr, "answered from") {
		t.Errorf("a tune after the shared store was cleared was answered:\n%s", r.stderr)
	}

	tune("a.db")
	table := store.Table{Hardware: info.Hardware(), Tuner: "builtin"}.String()
	r = mustRun(t, 0, "cache", "clear", "--shared", "--hardware", info.Hardware(), "--tuner", "builtin", "--cache", local, "--store", srv.URL())
	if want := "cleared table " + table + " of the local tune cache " + local + "\ncleared table " + table + " of the shared store " + shared + "\n"; r.stderr != want {
		t.Errorf("cache clear --shared of one table says:\n%s\nwant:\n%s", r.stderr, want)
	}
	if l := strings.TrimSpace(ls()); l != "the cache is empty" {
		t.Errorf("after clearing the table in both tiers, cache ls:\n%s", l)
	}

	// A table in one tier only is cleared there, the other said to have
	// none; in neither, it is bad usage naming both.
	tune("c.db")
	r = mustRun(t, 0, "cache", "clear", "--shared", "--hardware", info.Hardware(), "--cache", local, "--store", srv.URL())
	if want := "cleared table " + table + " of the shared store " + shared + "\nnothing cleared in the local tune cache " + local + ": it has no tables\n"; !strings.HasSuffix(r.stderr, want) {
		t.Errorf("cache clear --shared of a table only the store has says:\n%s\nwant it to end:\n%s", r.stderr, want)
	}
	r = mustRun(t, exitUsage, "cache", "clear", "--shared", "--hardware", info.Hardware(), "--cache", local, "--store", srv.URL())
	if !strings.Contains(r.stderr, "the local tune cache "+local+": it has no tables") || !strings.Contains(r.stderr, "the shared store "+shared+": it has no tables") {
		t.Errorf("cache clear --shared of a table in neither tier says:\n%s", r.stderr)
	}
}

// TestFleetCacheClearStoreDown: cache clear --shared with the store down
// clears the local file, says that the store was not cleared, and exits 3,
// a failure of the work: the usage was good.
func TestFleetCacheClearStoreDown(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.DefaultURL()
	srv.Stop()
	local := filepath.Join(t.TempDir(), "a.db")
	for _, args := range [][]string{nil, {"--hardware", "hw"}} {
		putTable(t, local)
		r := mustRun(t, exitDevice, append([]string{"cache", "clear", "--shared", "--cache", local, "--store", url}, args...)...)
		if !strings.Contains(r.stderr, "of the local tune cache "+local+"\n") || !strings.Contains(r.stderr, "vkbench: the local file was cleared, not the shared store: ") ||
			!strings.Contains(r.stderr, "UNAVAILABLE") {
			t.Errorf("cache clear --shared %s with the store down says:\n%s", args, r.stderr)
		}
	}
}

// putTable writes a table, hw's, of one row into the cache file at path.
func putTable(t *testing.T, path string) {
	c, err := store.Open(store.Options{Path: path})
	if err == nil {
		err = c.Update(context.Background(), store.Table{Hardware: "hw", Tuner: "builtin"}, func(rows store.Rows) error { return rows.Put([]byte("k"), []byte("v")) })
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestFleetCacheMessages: with --store, cache show of a key in neither
// tier names both, where it named only the file; cache export of a file
// with no tables says so, naming the local file (its help says the store
// is not read), where it said "no table matches --hardware "" --tuner "";
// tables: ".
func TestFleetCacheMessages(t *testing.T) {
	srv := redistest.Start(t)
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "a.db")
	putTable(t, local)
	r := mustRun(t, exitUsage, "cache", "show", "copy/u32/4096", "--cache", local, "--store", srv.URL())
	if want := "no entry copy/u32/4096 in " + local + " or in the shared store " + u.Redacted() + "\n"; !strings.HasSuffix(r.stderr, want) {
		t.Errorf("cache show of a key in neither tier says %q; want %q", r.stderr, want)
	}
	mustRun(t, 0, "cache", "clear", "--cache", local)
	r = mustRun(t, exitUsage, "cache", "export", filepath.Join(t.TempDir(), "x.json"), "--cache", local, "--store", srv.URL())
	if want := "vkbench: the local tune cache " + local + ": it has no tables\n"; r.stderr != want {
		t.Errorf("cache export of a file with no tables says %q; want %q", r.stderr, want)
	}
}

// TestFleetStoreMisconfigured: a shared store whose TLS is asked for
// wrongly, either way, or whose certificate this machine does not trust
// (FAILED_PRECONDITION, as store/redis says) is the user's configuration:
// exit status 2, one line that names what to fix, before any work, from
// a command that only reads the cache and from one that tunes.
func TestFleetStoreMisconfigured(t *testing.T) {
	needDevice(t)
	plain, secure := redistest.Start(t), redistest.StartTLS(t)
	const patient = "?dial_timeout=5s" // the other protocol is asked within it
	local := filepath.Join(t.TempDir(), "a.db")
	for _, c := range []struct{ url, says string }{
		{strings.Replace(plain.DefaultURL(), "redis://", "rediss://", 1) + patient, "rediss:// asks for TLS, and the server speaks plain text; use redis://"},
		{strings.Replace(secure.DefaultURL(), "rediss://", "redis://", 1) + patient, "redis:// speaks plain text, and the server asks for TLS; use rediss://"},
		{secure.URL(), "its TLS certificate is not trusted here"},
	} {
		for _, args := range [][]string{{"cache", "ls"}, {"tune", "copy", "--size", "4096"}} {
			r := vkbench(t, append(args, "--cache", local, "--store", c.url)...)
			if r.code != exitUsage {
				t.Errorf("vkbench %s --store %s: exit status %d, want %d\nstderr: %s", strings.Join(args, " "), c.url, r.code, exitUsage, r.stderr)
			}
			checkOneLine(t, r, regexp.MustCompile(regexp.QuoteMeta(c.says)))
		}
	}
}

// TestFleetInterruptedPing: SIGINT while tune asks a store that does not
// answer (paused) stops the command at once, exit status 130 and the one
// line that says so, where it waited out the question's bound; measured
// against that bound, uncancelled, on the same server.
func TestFleetInterruptedPing(t *testing.T) {
	srv := redistest.Start(t)
	srv.Pause()
	defer srv.Resume()
	t0 := time.Now()
	if _, err := store.Open(store.Options{Path: "off", Shared: srv.DefaultURL(), Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	bound := time.Since(t0)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(bound/5, func() { cancelled <- time.Now(); cancel(interrupt{syscall.SIGINT}) })
	var stdout, stderr strings.Builder
	code := execute(ctx, []string{"tune", "copy", "--size", "4096", "--store", srv.DefaultURL(), "--cache", filepath.Join(t.TempDir(), "a.db")}, &stdout, &stderr)
	took := time.Since(<-cancelled)
	t.Logf("SIGINT at a fifth of the uncancelled question's %v: exit %v later", bound.Round(time.Millisecond), took.Round(time.Millisecond))
	if want := "vkbench: interrupted by SIGINT: stopped; no results written, winners already in the tune cache kept\n"; code != 130 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit status %d, stdout %q, stderr %q; want 130 and only %q", code, stdout.String(), stderr.String(), want)
	}
	if took > bound/10 {
		t.Errorf("exit %v after SIGINT; want within a tenth of the uncancelled question's %v", took, bound)
	}
}
