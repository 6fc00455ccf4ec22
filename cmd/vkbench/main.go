// Command vkbench runs SPIR-V compute kernels on Vulkan devices, measures
// them with GPU timestamps, and remembers which candidate kernel is fastest
// on each kind of hardware. "vkbench help" lists its commands (devices,
// run, tune, peak, cache, compare, ab, report, replay), and "vkbench help
// COMMAND" says more about each.
//
// Exit status: 0 success, 1 a verdict on the kernels (a regression, a
// wrong result, an operation that could not run at its size), 2 bad usage
// or input, 3 a device or driver failure, 4 the output could not be
// written, 130 interrupted (SIGINT), 143 terminated (SIGTERM).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	_ "github.com/vkbench/vkbench/vk"
)

// Exit codes, documented in the README.
const (
	exitOK         = 0
	exitRegression = 1
	exitUsage      = 2
	exitDevice     = 3
	exitOutput     = 4
)

// usageError marks an error as the user's input, for exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// asUsage marks err, if it is not nil, as the user's input.
func asUsage(err error) error {
	if _, ok := errors.AsType[usageError](err); err == nil || ok {
		return err
	}
	return usageError{err}
}

func main() {
	// A write to a closed pipe returns an error (EPIPE), exit status 4 as
	// any output's failure, where the signal would end the process with
	// no word of it.
	signal.Ignore(syscall.SIGPIPE)
	stderr := &quietWriter{w: os.Stderr}
	ctx, stop := notifyInterrupt(context.Background(), stderr)
	code := execute(ctx, os.Args[1:], os.Stdout, stderr)
	stop()
	os.Exit(code)
}

// quietWriter is the command's stderr. It keeps the time of its last
// write, so that the notice of a slow stop (notifyInterrupt) comes only
// after a silence; and while a progress bar is drawn on it, every line
// written to it starts on a clean line: the bar's line is erased first
// (the bar redraws itself with its next step), where the line would
// otherwise be glued to the end of the spinner's.
type quietWriter struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
	bar  bool // a progress bar is drawn, through barWriter
	open bool // the last write left its line unfinished
}

func (q *quietWriter) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.writeLines(p)
}

// writeLines writes p, erasing the bar's line first where p starts a
// line; q.mu is held.
func (q *quietWriter) writeLines(p []byte) (int, error) {
	q.last = time.Now()
	if q.bar && !q.open && len(p) > 0 {
		if _, err := io.WriteString(q.w, eraseLine); err != nil {
			return 0, err
		}
	}
	n, err := q.w.Write(p)
	if n > 0 {
		q.open = p[n-1] != '\n'
	}
	return n, err
}

// Unwrap is the writer q writes to: the progress bar asks whether it is a
// terminal.
func (q *quietWriter) Unwrap() io.Writer { return q.w }

// barWriter is what a progress bar draws with on q, from then until
// drawn(false): its writes are the bar's own line, the others' lines go
// above it.
func (q *quietWriter) barWriter() io.Writer {
	q.drawn(true)
	return barWriter{q}
}

// drawn says whether a bar is drawn on q.
func (q *quietWriter) drawn(on bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bar = on
}

type barWriter struct{ q *quietWriter }

func (b barWriter) Write(p []byte) (int, error) {
	b.q.mu.Lock()
	defer b.q.mu.Unlock()
	b.q.last = time.Now()
	b.q.open = false // the line is the bar's now
	return b.q.w.Write(p)
}

// writeIfQuiet writes msg if nothing has been written for d, and returns
// 0; otherwise it writes nothing and returns how much longer the quiet
// must last.
func (q *quietWriter) writeIfQuiet(d time.Duration, msg string) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	if since := time.Since(q.last); since < d {
		return d - since
	}
	_, _ = q.writeLines([]byte(msg)) // a notice on the way out; nowhere else to say it
	return 0
}

// stopNotice is how long the work may take to stop after a signal, in
// silence, before vkbench says what it is waiting for.
const stopNotice = time.Second

// interrupt is the cause of a command's context cancelled by a signal.
type interrupt struct{ sig syscall.Signal }

func (i interrupt) Error() string { return "interrupted by " + signalName(i.sig) }

// keptOnInterrupt is the annotation of a command that stores as it goes:
// what an interrupt leaves stored, as the end of the line that says it
// stopped (", winners already in the tune cache kept"). The others stored
// nothing.
const keptOnInterrupt = "kept-on-interrupt"

// exitCode is what a shell expects of a process that a signal ended: 128
// plus the signal's number (130 for SIGINT, 143 for SIGTERM).
func (i interrupt) exitCode() int { return 128 + int(i.sig) }

func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// notifyInterrupt returns a context that the first SIGINT or SIGTERM
// cancels, with an interrupt as its cause: the command stops its work,
// waits (boundedly) for the GPU's current submission, writes nothing, and
// exits with the signal's status. Work that cannot be cut short, such as
// a driver compiling a pipeline or a long submission on a CPU device,
// finishes first: after stopNotice of silence a line says so. A second
// signal exits at once.
func notifyInterrupt(parent context.Context, stderr *quietWriter) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		first, ok := <-sigs
		if !ok {
			return
		}
		in := interrupt{first.(syscall.Signal)} // SIGINT or SIGTERM, as notified
		cancel(in)
		go noticeSlowStop(stderr, in, done)
		if _, ok := <-sigs; ok {
			_, _ = fmt.Fprintf(stderr, "vkbench: %s again: exiting at once\n", signalName(in.sig)) // on the way out
			os.Exit(in.exitCode())
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		close(done)
		cancel(nil)
	}
}

// noticeSlowStop says, once, what a stop after signal in waits for, when
// stderr has been silent for stopNotice and the command has not ended
// (done).
func noticeSlowStop(stderr *quietWriter, in interrupt, done <-chan struct{}) {
	msg := fmt.Sprintf("vkbench: %s: stopping once the step under way ends (a pipeline's compile, a GPU submission or a check of results); %s again exits at once\n",
		signalName(in.sig), signalName(in.sig))
	t := time.NewTimer(stopNotice)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			left := stderr.writeIfQuiet(stopNotice, msg)
			if left == 0 {
				return
			}
			t.Reset(left)
		}
	}
}

// execute runs the command line args and returns the exit status. An error
// is one line on stderr, "vkbench: " and the message; never a usage dump.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if _, ok := stderr.(*quietWriter); !ok {
		stderr = &quietWriter{w: stderr}
	}
	root := newRoot()
	root.SetArgs(append([]string{}, args...)) // never nil: nil means os.Args
	// Standard output, as -o's file, is an outFile: a write it fails is
	// exit status 4, whichever command wrote, even where the writer drops
	// the error (cobra's help does).
	out := &outFile{w: stdout, name: "standard output"}
	root.SetOut(out)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		err = out.err
	}
	if in, ok := errors.AsType[interrupt](context.Cause(ctx)); ok {
		// Whatever the work said on its way out, it was told to stop.
		kept := ""
		if cmd != nil {
			kept = cmd.Annotations[keptOnInterrupt]
		}
		_, _ = fmt.Fprintf(stderr, "vkbench: %s: stopped; no results written%s\n", in, kept) // nowhere left to say it
		return in.exitCode()
	}
	if err != nil {
		// For a person: what happened, without the codes, which programs
		// read from the exit status, or the JSON.
		_, _ = fmt.Fprintf(stderr, "vkbench: %s\n", status.TextForPeople(err.Error())) // nowhere left to say it
	}
	return exitCode(err)
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	switch {
	case errors.As(err, new(errOutput)):
		return exitOutput
	case errors.As(err, new(errFailed)):
		return exitRegression
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, new(deviceError)), errors.Is(err, hal.ErrDeviceLost), errors.Is(err, hal.ErrReleased), errors.Is(err, hal.ErrInFlight):
		return exitDevice
	case errors.Is(err, kernels.ErrWrongResult): // a verdict on a kernel, whatever its code
		return exitRegression
	}
	if exit, ok := exitOfCode[status.CodeOf(err)]; ok {
		return exit
	}
	return exitDevice // every other code is the device's, the driver's or the work's
}

// exitOfCode is the exit status of an error that reaches it with nothing
// above deciding, by its code: the README's table. FAILED_PRECONDITION and
// UNIMPLEMENTED are the kernels': every precondition of the user's making
// (a shared store's TLS or certificate, a cache file of another program, a
// validation layer asked for, an import of other hardware, an energy
// counter) is checked where it is read, before the work, and is bad usage
// there (usageError, openError); one that reaches here arose in the work,
// an operation that could not run on the device: its reference candidate
// cannot run, no candidate computed correctly, the device fails a
// manifest's assert of its limits or lacks a memory type, as run and tune
// judge it (operationsOwn). A device that cannot be used at all is
// UNIMPLEMENTED too, and the device's (openError). INCOMPATIBLE, a loader
// or driver too old, is the driver's; a file of another version is
// refused where it is read.
var exitOfCode = map[status.Code]int{
	status.InvalidArgument: exitUsage, status.NotFound: exitUsage, status.OutOfRange: exitUsage,
	status.AlreadyExists: exitUsage, status.PermissionDenied: exitUsage, status.Unauthenticated: exitUsage,
	status.FailedPrecondition: exitRegression, status.Unimplemented: exitRegression,
}

// errFailed makes the command exit with status 1 after its output: a
// regression, a candidate that computed a wrong result, an operation that
// could not be measured.
type errFailed string

func (e errFailed) Error() string { return string(e) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "vkbench",
		Short: "Benchmark and autotune SPIR-V compute kernels on Vulkan devices",
		Long: `vkbench runs SPIR-V compute kernels on a Vulkan device, measures them with GPU
timestamps, picks the fastest of several candidate kernels for a problem, and
remembers the answer per hardware in a tune cache.

Exit status: 0 success; 1 a verdict on the kernels: a regression (compare, ab),
a candidate that computed a wrong result, an operation that could not run at its
size; 2 bad usage or input; 3 a device or driver failure; 4 the output could not
be written (a full disk, a closed pipe); 130 interrupted, 143 terminated. Each
command's help says which of them it gives.`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{plainFlagError(err)} })
	// -v is verbose in every command, as run -v always was; the version is
	// --version alone (cobra would take -v for it, unless taken).
	root.PersistentFlags().BoolP("verbose", "v", false, "log on stderr what the command does: for run, tune and ab, where the time goes (preparing, building, verifying, warming up, sampling) and, where the driver reports it, what its compiler made of each kernel (registers, spills)")
	root.AddCommand(newDevicesCmd(), newRunCmd(), newTuneCmd(), newPeakCmd(), newCacheCmd(), newCompareCmd(), newABCmd(), newReportCmd(), newReplayCmd())
	root.SetHelpCommand(newHelpCmd(root))
	root.InitDefaultCompletionCmd()
	// A command that only groups others has no usage line of its own.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	strictArgs(root)
	return root
}

// strictArgs makes every wrong argument in cmd's tree bad usage (exit
// status 2, one line): cobra's own checks return plain errors, and a
// command that only groups others shows its help, with status 0, for any
// word it does not know.
func strictArgs(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		strictArgs(c)
	}
	if cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which only its Find sets
		cmd.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				if like := c.SuggestionsFor(args[0]); len(like) > 0 {
					return usageError{fmt.Errorf("unknown command %q for %q; did you mean %s? (see %s --help)", args[0], c.CommandPath(), strings.Join(like, " or "), c.CommandPath())}
				}
				return usageError{fmt.Errorf("unknown command %q for %q (see %s --help)", args[0], c.CommandPath(), c.CommandPath())}
			}
			return nil
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		return
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error { return asUsage(check(c, args)) }
	}
}

// strconvError matches what pflag passes on of strconv's error for a flag
// whose value is no number: `: strconv.ParseUint: parsing "-1": invalid
// syntax`.
var strconvError = regexp.MustCompile(`: strconv\.Parse(\w+): parsing "[^"]*": (invalid syntax|value out of range)$`)

// plainFlagError says what a flag wants where its value is no number of
// its kind, rather than strconv's words: `invalid argument "-1" for
// "--seed" flag: want a whole number from 0 to 18446744073709551615`.
func plainFlagError(err error) error {
	m := strconvError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := map[string]string{
		"Uint":  "a whole number from 0 to 18446744073709551615",
		"Int":   "a whole number",
		"Float": "a number",
		"Bool":  "true or false",
	}[m[1]]
	if want == "" {
		return err
	}
	if m[2] == "value out of range" {
		want += ", and this one is out of range"
	}
	return errors.New(strings.TrimSuffix(err.Error(), m[0]) + ": want " + want)
}

// newHelpCmd replaces cobra's help command, which answers an unknown
// topic with the usage and status 0.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND...]",
		Short: "Help about any command",
		Long:  "Help shows the help of any command: vkbench help cache show.",
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageError{fmt.Errorf("unknown help topic %q (see vkbench help)", strings.Join(args, " "))}
			}
			target.InitDefaultHelpFlag() // as --help shows it
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

func verbose(cmd *cobra.Command) bool {
	v, _ := cmd.Flags().GetBool("verbose") // defined on the root for every command
	return v
}

// warningLogger writes what the packages log (cache problems, validation
// messages) as one "vkbench: warning: " line each on w.
func warningLogger(w io.Writer) *slog.Logger {
	return slog.New(&warningHandler{w: w})
}

type warningHandler struct {
	w     io.Writer
	attrs []slog.Attr
}

func (h *warningHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warningHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("vkbench: warning: ")
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	_, err := fmt.Fprintln(h.w, strings.ReplaceAll(b.String(), "\n", " "))
	return err
}

func (h *warningHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &warningHandler{w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *warningHandler) WithGroup(string) slog.Handler { return h }
