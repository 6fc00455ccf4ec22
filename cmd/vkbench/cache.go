package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	_ "github.com/vkbench/vkbench/store/redis" // --store redis://
)

// cacheFlags are the flags every command that uses the cache shares.
type cacheFlags struct {
	path   string
	shared string
}

// envStore names the environment variable --store defaults to.
const envStore = "VKBENCH_STORE"

func (f *cacheFlags) register(fs *pflag.FlagSet) {
	fs.Var(nonEmpty{&f.path, `a file, or "off"`}, "cache", "tune cache file (default $"+store.EnvCache+", else "+store.DefaultCachePath()+"; \"off\" disables it)")
	fs.StringVar(&f.shared, "store", os.Getenv(envStore), "shared tune store above the cache file, which a fleet shares: redis://[user:password@]host:port/db or rediss:// (TLS); the password may come from $"+store.EnvStorePassword+". One out of reach is a warning, and the file serves alone; one that refuses this process (its password, its database, the wrong TLS scheme, an untrusted certificate) is an error, exit status 2, before any work (default $"+envStore+")")
}

// cacheInput is the tune cache's file, which an output may not replace.
func cacheInput(c *store.Store) input { return input{c.Path(), "the tune cache's file"} }

// open opens the cache, with its warnings on cmd's stderr. A path that
// cannot serve (under a file that is not a folder; for write, a folder
// that cannot be created or written) or a file of another program (not a
// tune cache: left as it is) is bad usage now, before any work, rather
// than a warning after it.
func (f *cacheFlags) open(cmd *cobra.Command, write bool) (*store.Store, error) {
	c, err := store.OpenContext(cmd.Context(), store.Options{Path: f.path, Shared: f.shared, Logger: warningLogger(cmd.ErrOrStderr())})
	if err != nil {
		return nil, usageError{err}
	}
	if p := c.Path(); p != "" {
		if err := checkCachePath(p, write); err != nil {
			return nil, usageError{fmt.Errorf("--cache %s: %w", p, err)}
		}
		// Locked or damaged, the file serves as the store says.
		if err := c.CheckRead(cmd.Context()); status.CodeOf(err) == status.FailedPrecondition {
			return nil, usageError{err}
		}
	}
	return c, nil
}

// openFor opens the cache (open) for a command that only reads it, or
// that stores in it: one that stores refuses, before any work, a tune
// cache that another process holds locked (waiting as a commit would),
// where it would otherwise measure, then find it cannot keep it.
func (f *cacheFlags) openFor(cmd *cobra.Command, stores bool) (*store.Store, error) {
	cache, err := f.open(cmd, stores)
	if err != nil || !stores {
		return cache, err
	}
	err = cache.CheckWrite(cmd.Context())
	switch {
	case err == nil:
		return cache, nil
	case status.CodeOf(err) == status.Unavailable:
		return nil, usageError{fmt.Errorf("--cache %s: another process holds the tune cache's lock: let it finish, or point --cache at another file", cache.Path())}
	}
	return nil, usageError{fmt.Errorf("--cache %s: %w", cache.Path(), err)}
}

func checkCachePath(path string, write bool) error {
	fi, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		// A symbolic-link loop, a folder that cannot be searched: the path
		// cannot serve, whatever the command would do with it.
		return unwrapPathError(err)
	}
	if err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("not a regular file")
		}
		if !write {
			return nil
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return unwritable(err)
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a folder", d)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if !write {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return unwritable(err)
	}
	probe, err := os.CreateTemp(dir, ".vkbench-probe-*")
	if err != nil {
		return unwritable(err)
	}
	return errors.Join(probe.Close(), os.Remove(probe.Name()))
}

// unwritable says, of a permission the system refused, what it means to
// a user of the tune cache and what to do.
func unwritable(err error) error {
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return err
	}
	return fmt.Errorf("the tune cache file cannot be written (%w): point --cache or $%s at one that can; run reads this one as it is", unwrapPathError(err), store.EnvCache)
}

// newCacheCmd is cache, whose subcommands share its --cache flag. An
// error of the cache file is bad usage (exit status 2, as the README's
// table says): the cache commands have nothing to do but read or write
// the file, and a file that is damaged, locked or of a newer format is the
// user's to fix (move it aside, point --cache elsewhere), not a failure of
// the device.
func newCacheCmd() *cobra.Command {
	var cf cacheFlags
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Inspect and manage the tune cache",
		Long: `The tune cache remembers, per hardware, which candidate won each tuning key.
Tables are named ` + store.Table{Hardware: "<hardware>", Tuner: "<tuner>"}.String() + `; entries are keyed
by operation/dtype/shape and the checksum of the candidate list.`,
	}
	cf.register(cmd.PersistentFlags())
	cmd.AddCommand(newCachePathCmd(&cf), newCacheLsCmd(&cf), newCacheShowCmd(&cf), newCacheExportCmd(&cf),
		newCacheImportCmd(&cf), newCacheClearCmd(&cf), newExportLogCmd(&cf))
	return cmd
}

func newCachePathCmd(cf *cacheFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the cache file's path",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := store.Open(store.Options{Path: cf.path})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), cmp.Or(c.Path(), "off"))
			return err
		},
	}
}

func newCacheLsCmd(cf *cacheFlags) *cobra.Command {
	var format *string
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List tables and their entries",
		Long:  "List every table of the tune cache and its entries.",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(*format, "table", "json"); err != nil {
				return err
			}
			c, err := cf.open(cmd, false)
			if err != nil {
				return err
			}
			tables, err := chosenTables(cmd.Context(), c, "", "")
			if err != nil {
				return err
			}
			if *format == "json" {
				return writeJSON(cmd.OutOrStdout(), tables)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, t := range tables {
				listTable(tw, t)
			}
			if len(tables) == 0 {
				fmt.Fprintln(tw, "the cache is empty")
			}
			return tw.Flush()
		},
	}
	format = formatFlag(ls)
	return ls
}

// formatFlag registers cache ls's and show's --format, table or json,
// and returns it.
func formatFlag(cmd *cobra.Command) *string {
	return cmd.Flags().StringP("format", "f", "table", "output: table or json")
}

// tier is one tier of the store: the local file, or the shared store
// (named, in listings, only when there is one).
type tier struct {
	s    *store.Store
	name string
}

// tableEntries is a table of one tier, and its entries.
type tableEntries struct {
	Table   store.Table       `json:"table"`
	Tier    string            `json:"tier,omitempty"`
	Entries []*autotune.Entry `json:"entries"`
}

// chosenTables returns the tables that --hardware hw and --tuner tuner
// choose (tableChosen), with their entries: the file's, then the shared
// store's if any. A shared tier that fails is left out, with its one
// warning; ctx ending is the error of either.
func chosenTables(ctx context.Context, c *store.Store, hw, tuner string) ([]tableEntries, error) {
	tiers := []tier{{s: c}}
	if shared := c.Shared(); shared != nil {
		tiers = []tier{{s: c, name: "local"}, {s: shared, name: "shared"}}
	}
	var out []tableEntries
	for _, tr := range tiers {
		tables, err := tr.chosenTables(ctx, hw, tuner)
		if err != nil && (tr.s == c || ctx.Err() != nil) {
			return nil, asUsage(err)
		}
		out = append(out, tables...)
	}
	return out, nil
}

// chosenTables returns tr's tables that hw and tuner choose, with their
// entries.
func (tr tier) chosenTables(ctx context.Context, hw, tuner string) ([]tableEntries, error) {
	tables, err := tr.s.Tables(ctx)
	if err != nil {
		return nil, err
	}
	var out []tableEntries
	for _, t := range tables {
		if !tableChosen(t, hw, tuner) {
			continue
		}
		entries, err := autotune.Entries(ctx, tr.s, t)
		if err != nil {
			return nil, err
		}
		out = append(out, tableEntries{t, tr.name, entries})
	}
	return out, nil
}

// listTable lists t's entries on tw.
func listTable(tw io.Writer, t tableEntries) {
	tier := ""
	if t.Tier != "" {
		tier = ", " + t.Tier
	}
	fmt.Fprintf(tw, "%s (%s%s)\n", t.Table, plural(len(t.Entries), "entry", "entries"), tier)
	for _, e := range t.Entries {
		tie := ""
		if e.Tie {
			tie = " (tie)"
		}
		if e.Fastest >= 0 && slices.Contains(e.Results[e.Fastest].Flags, autotune.FlagDrift) {
			tie += " (drift)"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\t%s\t%s\n", e.Key, e.FastestName, tie, e.Mode, e.Time.Format("2006-01-02 15:04"))
	}
}

func newCacheShowCmd(cf *cacheFlags) *cobra.Command {
	var (
		format    *string
		hw, tuner string
	)
	show := &cobra.Command{
		Use:   "show KEY",
		Short: "Show one entry: every candidate's measurements and why the winner won",
		Long: `Show the entry for KEY (operation/dtype/shape, as "gemm/f32/4096x4096x4096")
in every table that has it, or only in the table of --hardware and --tuner.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(*format, "table", "json"); err != nil {
				return err
			}
			k, err := autotune.ParseKey(args[0])
			if err != nil {
				return usageError{err}
			}
			c, err := cf.open(cmd, false)
			if err != nil {
				return err
			}
			tables, err := chosenTables(cmd.Context(), c, hw, tuner)
			if err != nil {
				return err
			}
			found := 0
			for _, t := range tables {
				for _, e := range t.Entries {
					if e.Key != k.String() {
						continue
					}
					found++
					if *format == "json" {
						err = writeJSON(cmd.OutOrStdout(), struct {
							*autotune.Entry
							Tier string `json:"tier,omitempty"`
						}{e, t.Tier})
					} else if err = writeEntry(cmd, t.Table, t.Tier, e); err == nil {
						_, err = io.WriteString(cmd.OutOrStdout(), searchNote(cmd.Context(), c, t, e))
					}
					if err != nil {
						return err
					}
				}
			}
			if found == 0 {
				return usageError{noEntry(k.String(), c, spaceSearched(k.String(), tables))}
			}
			return nil
		},
	}
	format = formatFlag(show)
	show.Flags().StringVar(&hw, "hardware", "", "only this hardware's table")
	show.Flags().StringVar(&tuner, "tuner", "", "only this tuner's table")
	return show
}

func newCacheExportCmd(cf *cacheFlags) *cobra.Command {
	var hw, tuner string
	export := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a table to FILE (JSON), to import on machines of the same hardware",
		Long: `Write a table of the local tune cache file to FILE (JSON), to import on
machines of the same hardware. A shared store (--store) is not read.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.open(cmd, false)
			if err != nil {
				return err
			}
			t, err := pickTable(cmd.Context(), c, hw, tuner)
			if err != nil {
				return asUsage(fmt.Errorf("the local tune cache %s: %w", cmp.Or(c.Path(), "(--cache off)"), err))
			}
			// An interrupt drops the file, which the command says it did not write.
			write := func(w io.Writer) error { return cmp.Or(autotune.Export(cmd.Context(), w, c, t), cmd.Context().Err()) }
			if err := writeOutput(cmd, args[0], write, cacheInput(c)); err != nil {
				return asUsage(err)
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to %s\n", t, args[0])
			return err
		},
	}
	export.Flags().StringVar(&hw, "hardware", "", "the table's hardware (needed when there are several)")
	export.Flags().StringVar(&tuner, "tuner", "", "the table's tuner (needed when there are several)")
	return export
}

func newCacheImportCmd(cf *cacheFlags) *cobra.Command {
	var (
		hw    string
		force bool
	)
	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a table written by export",
		Long: `Import a table written by export. Answers measured on other hardware do not
apply: with --hardware, a file from other hardware is refused unless --force.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.open(cmd, true)
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usageError{err}
			}
			t, n, err := autotune.Import(cmd.Context(), c, f, hw, force)
			kept := ", no entry imported"
			if n > 0 {
				kept = fmt.Sprintf(", but the %d entries imported before it stopped stay (importing again is safe)", n)
			}
			cmd.Annotations = map[string]string{keptOnInterrupt: kept}
			if err := status.Join(err, f.Close()); err != nil {
				return usageError{importError(args[0], err)}
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "imported %d entries into %s\n", n, t)
			return err
		},
	}
	imp.Flags().StringVar(&hw, "hardware", "", "refuse files measured on other hardware than this")
	imp.Flags().BoolVar(&force, "force", false, "import even when the hardware differs")
	return imp
}

// noEntry is cache show's error where no table of c has key: in its file,
// or in no file at all where there is none there or the cache is off, and
// in its shared store if any; then also.
func noEntry(key string, c *store.Store, also string) error {
	path := c.Path()
	where := "in " + path
	if path == "" {
		where = "(the tune cache is off)"
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		where = "(the tune cache " + path + " does not exist)"
	}
	if s := c.Shared(); s != nil && strings.HasPrefix(where, "in ") {
		where += " or in the shared store " + s.Path()
	} else if s != nil {
		where = "in the shared store " + s.Path() + " " + where
	}
	return status.Newf(status.NotFound, "no entry %s %s%s", key, where, also)
}

// importError is cache import's error of file: named, and where the file
// is not an exported table at all, saying so in JSON's words, not in Go's
// ("cannot unmarshal string into Go struct field exportFile.schema").
func importError(file string, err error) error {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("%s is not a table written by vkbench cache export: not JSON (%v, at byte %d)", file, se, se.Offset)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		what := "it is"
		if te.Field != "" {
			what = fmt.Sprintf("its %q is", te.Field)
		}
		return fmt.Errorf("%s is not a table written by vkbench cache export: %s a JSON %s, want %s", file, what, te.Value, jsonKind(te.Type))
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s is empty, not a table written by vkbench cache export", file)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s is not a table written by vkbench cache export: its JSON is cut short", file)
	}
	return status.Annotatef(err, "importing %s", file)
}

// jsonKind is what JSON value a Go type decodes from, in words.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a number"
}

func newCacheClearCmd(cf *cacheFlags) *cobra.Command {
	var hw, tuner string
	var shared bool
	clear := &cobra.Command{
		Use:   "clear",
		Short: "Remove every table, or one with --hardware and --tuner (--shared: of the store too)",
		Long: `Remove every table of the tune cache, or one with --hardware and --tuner,
with its tuning logs. It clears the local file only, even with --store: the
shared store is the fleet's, and clearing it takes --shared (with --store),
which clears both tiers (a table that one of them lacks, in the other). It
says which tier it cleared; a shared store that
fails is not cleared, and the command says so and exits 3.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cf.open(cmd, true)
			if err != nil {
				return err
			}
			if shared && c.Shared() == nil {
				return usageError{fmt.Errorf("--shared clears the shared store: name it with --store (or $%s)", envStore)}
			}
			tiers := []tier{{s: c, name: "the local tune cache " + cmp.Or(c.Path(), "(--cache off)")}}
			if shared {
				tiers = append(tiers, tier{s: c.Shared(), name: "the shared store " + c.Shared().Path()})
			}
			var none []error // the tiers with no table to clear
			for _, tr := range tiers {
				err := clearTier(cmd, tr, hw, tuner)
				if _, ok := errors.AsType[noTableError](err); ok {
					none = append(none, err)
				} else if err != nil && tr.s == c {
					return asUsage(err)
				} else if err != nil {
					// A store that failed is no bad usage: the work
					// failed (exit 3).
					if len(none) > 0 {
						return fmt.Errorf("nothing was cleared (%v), not the shared store: %w", none[0], err)
					}
					return fmt.Errorf("the local file was cleared, not the shared store: %w", err)
				}
			}
			if len(none) == len(tiers) {
				return usageError{errors.Join(none...)}
			}
			for _, e := range none {
				fmt.Fprintf(cmd.ErrOrStderr(), "nothing cleared in %v\n", e)
			}
			if c.Shared() != nil && !shared {
				_, err = fmt.Fprintf(cmd.ErrOrStderr(), "the shared store %s is left as it is (--shared clears it too)\n", c.Shared().Path())
			}
			return err
		},
	}
	clear.Flags().StringVar(&hw, "hardware", "", "only this hardware's table")
	clear.Flags().StringVar(&tuner, "tuner", "", "only this tuner's table")
	clear.Flags().BoolVar(&shared, "shared", false, "clear the shared store (--store) too, for every machine that shares it")
	return clear
}

// clearTier clears every table of tr, or the one hw and tuner choose, and
// says so on stderr.
func clearTier(cmd *cobra.Command, tr tier, hw, tuner string) error {
	what, table := "every table", (*store.Table)(nil)
	if hw != "" || tuner != "" {
		t, err := pickTable(cmd.Context(), tr.s, hw, tuner)
		if err != nil {
			return fmt.Errorf("%s: %w", tr.name, err)
		}
		what, table = "table "+t.String(), &t
	}
	if err := tr.s.Clear(cmd.Context(), table); err != nil {
		return err
	}
	_, err := fmt.Fprintf(cmd.ErrOrStderr(), "cleared %s of %s\n", what, tr.name)
	return err
}

// tableChosen reports whether t is a table that --hardware hw and --tuner
// tuner choose: either empty matches any.
func tableChosen(t store.Table, hw, tuner string) bool {
	return (hw == "" || t.Hardware == hw) && (tuner == "" || t.Tuner == tuner)
}

// noTableError says that no table of a tier is one --hardware and
// --tuner choose: bad usage, unless another tier has it.
type noTableError struct{ error }

// pickTable finds the one table matching hardware and tuner (each may be
// empty to match any): none or several is bad usage; the store's failure
// is its error, and so is ctx's end.
func pickTable(ctx context.Context, c *store.Store, hw, tuner string) (store.Table, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return store.Table{}, err
	}
	if len(tables) == 0 {
		return store.Table{}, usageError{noTableError{errors.New("it has no tables")}}
	}
	var match []store.Table
	var names []string
	for _, t := range tables {
		names = append(names, t.String())
		if tableChosen(t, hw, tuner) {
			match = append(match, t)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return store.Table{}, usageError{noTableError{fmt.Errorf("no table matches --hardware %q --tuner %q; tables: %s", hw, tuner, strings.Join(names, ", "))}}
	}
	return store.Table{}, usageError{fmt.Errorf("%d tables match; choose one with --hardware and --tuner: %s", len(match), strings.Join(names, ", "))}
}

func writeEntry(cmd *cobra.Command, t store.Table, tier string, e *autotune.Entry) error {
	w := cmd.OutOrStdout()
	fmt.Fprintln(w, withNote(e.Key+" in "+t.String(), tier))
	fmt.Fprintf(w, "  winner: %s (candidate %d)", e.FastestName, e.Fastest)
	if e.Tie {
		fmt.Fprintf(w, ", a tie broken by: %s", e.TieRule)
	}
	fmt.Fprintf(w, "\n  measured: shape %s, level %s, mode %s, on %s, vkbench %s, %s\n", e.Size, e.Level, e.Mode, e.Device, e.Version, e.Time.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(w, "  limits: ±%.1f%% target, budget %v, %d-%d samples, seed %d\n", e.Bounds.TargetHalfWidth*100, e.Bounds.Budget, e.Bounds.MinSamples, e.Bounds.MaxSamples, e.Bounds.Seed)
	// Which objective picked the winner, and the conditions of the tune.
	if e.Objective != "" {
		fmt.Fprintf(w, "  objective: %s\n", withNote(string(e.Objective), e.ObjectiveNote))
	}
	switch {
	case e.Conditions != nil:
		fmt.Fprintf(w, "  conditions: %s\n", withNote(e.Conditions.String(), e.ConditionsNote))
	case e.ConditionsNote != "":
		fmt.Fprintf(w, "  conditions: %s\n", e.ConditionsNote)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tcandidate\toutcome\tmedian\t95% CI\tsamples\tGB/s\tGFLOP/s\tenergy/run\tnote")
	unevaluated := 0
	for _, r := range e.Results {
		if r.Outcome == results.Unevaluated {
			unevaluated++ // a search's: listed as a count
			continue
		}
		mark := ""
		if r.Index == e.Fastest {
			mark = "*"
		}
		med, ci, n := "-", "-", "-"
		if s := r.Stats; s != nil {
			med = report.Seconds(s.Median)
			ci = report.Interval(*s)
			n = fmt.Sprintf("%d×%d", s.N, s.Batch)
		}
		note := strings.Trim(report.FlagText(r.Flags...)+"; "+r.Error, "; ")
		energy := "-"
		if r.EnergyJ > 0 {
			energy = fmt.Sprintf("%s (%.0f W)", joules(r.EnergyJ), r.PowerW)
		}
		gbps, gflops := r.Rates()
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\n", mark, r.Name, r.Outcome, med, ci, n, gbps, gflops, energy, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unevaluated > 0 {
		fmt.Fprintf(w, "  and %d configurations of the space that no search evaluated\n", unevaluated)
	}
	return writeCompilerStats(w, e.Results)
}

// writeCompilerStats lists what the driver's compiler reported of each
// candidate (registers, spills: often why one is slower), when it did.
func writeCompilerStats(w io.Writer, rs []results.Result) error {
	var b strings.Builder
	for _, r := range rs {
		if len(r.Compiler) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("  compiler statistics, as the driver reports them:\n")
		}
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(r.Compiler)) {
			parts = append(parts, fmt.Sprintf("%s %g", name, r.Compiler[name]))
		}
		fmt.Fprintf(&b, "    %s: %s\n", r.Name, strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// plural writes n and the noun in the right number.
func plural(n int, one, many string) string { return fmt.Sprintf("%d %s", n, pick(n, one, many)) }

// counted is "n what", where n is not 0: a count worth saying.
func counted(n int, what string) []string {
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d %s", n, what)}
}

// sentence joins parts as a sentence lists them: "a", "a and b",
// "a, b and c".
func sentence(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// pick is one where n is 1, else many: the word of a count.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
