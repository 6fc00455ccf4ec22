package manifest

import (
	"cmp"
	"context"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/status"
)

// Options are how LoadWith goes about a manifest's GLSL sources.
type Options struct {
	// Context stops the manifest's compiles once it is done: those of
	// the load, and those a search asks for later (a configuration of a
	// GLSL space, compiled when the search evaluates it), which then fail
	// with its error. Nil is context.Background().
	Context context.Context
	// Progress, if set, is told how a batch of the load's compiles goes:
	// once as it starts (Done 0) and after each source compiled. Calls
	// do not overlap. (A search's progress covers the compiles of the
	// configurations it evaluates.)
	Progress func(CompileProgress)
}

// CompileProgress is how far a batch of GLSL compiles has gone: Done of
// Total sources (a source once for each set of #defines) that Op needs
// and the cache (Dir) did not hold, Workers at a time.
type CompileProgress struct {
	Op                   string
	Done, Total, Workers int
	Dir                  string
}

func (o *Options) context() context.Context {
	return cmp.Or[context.Context](o.Context, context.Background())
}

// glslJob is a GLSL source to compile with a set of #defines: module key
// of the decoder's map, named name.
type glslJob struct {
	key, name, path string
	src             []byte
	defines         []string
}

// compileAhead compiles, in parallel, the GLSL that decoding the
// operation n needs and the cache does not hold, into load's modules,
// and notes in its failed the sources that do not compile, for the
// decode to report where they are named. It goes again for what a
// candidate's later dispatches need, until a pass finds nothing new.
func (load opDecoder) compileAhead(n *jsonNode) error {
	if !compilesGLSL(n) {
		return nil // nothing to compile: no first pass
	}
	for {
		d, err := load.decoder(n)
		if err != nil {
			return nil // the decode that counts says what is wrong
		}
		d.gather = map[string]glslJob{}
		if _, err := d.decode(); err != errGathered || len(d.gather) == 0 {
			return nil
		}
		if err := compileJobs(d.op.name, d.gather, d.modules, d.failed, d.opts); err != nil {
			return err
		}
	}
}

// compileJobs compiles the jobs of gather, by key, over the processors,
// as many at once as there are, into modules (failed for those that do
// not compile), and says how it goes to opts.Progress. A cancelled
// context stops it: no further compile starts, those under way are
// stopped, and the error is the context's.
func compileJobs(op string, gather map[string]glslJob, modules map[string]*manifestModule, failed map[string]error, opts *Options) error {
	jobs := slices.SortedFunc(maps.Values(gather), func(a, b glslJob) int { return strings.Compare(a.key, b.key) })
	ctx := opts.context()
	var mu sync.Mutex // modules, failed, and the calls of Progress
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	report := func(done int) {
		if opts.Progress != nil {
			opts.Progress(CompileProgress{Op: op, Done: done, Total: len(jobs), Workers: workers, Dir: glslCacheDir()})
		}
	}
	report(0)
	var done atomic.Int64
	// One job a part: par gives each processor an equal share.
	par.Range(len(jobs), 1, func(lo, hi int) {
		for _, j := range jobs[lo:hi] {
			if ctx.Err() != nil {
				return
			}
			m, err := j.compile(ctx, false)
			mu.Lock()
			if ctx.Err() == nil {
				if err != nil {
					failed[j.key] = err
				} else {
					modules[j.key] = m
				}
				report(int(done.Add(1)))
			}
			mu.Unlock()
		}
	})
	if err := context.Cause(ctx); err != nil {
		return status.Wrapf(err, status.CodeOf(ctx.Err()), "manifest: %s: compiling GLSL: %d of %d compiled before it stopped", op, done.Load(), len(jobs))
	}
	return nil
}

// compilesGLSL reports whether operation n, a candidate or a dispatch
// of it names a GLSL source.
func compilesGLSL(n *jsonNode) bool {
	if n.kind != jsonObject {
		return false
	}
	return n.member("glsl") != nil || slices.ContainsFunc([]string{"candidates", "dispatches"}, func(key string) bool {
		l := n.member(key)
		return l != nil && l.kind == jsonArray && slices.ContainsFunc(l.elems, compilesGLSL)
	})
}
