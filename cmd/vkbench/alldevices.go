package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk"
)

// tuneAllDevices tunes ops on every device at once: devices of the same
// hardware share the work (each key is tuned once, by whichever takes it
// first), and a device lost on the way gives its key back to its twins.
func tuneAllDevices(cmd *cobra.Command, f *tuneFlags, opts autotune.Options, args []string) (err error) {
	if f.format != "table" && f.format != "json" {
		return usageError{fmt.Errorf("--all-devices writes table or json, not %q", f.format)}
	}
	ops, sizes, err := f.operations(cmd, args)
	if err != nil {
		return err
	}
	s, err := f.openFiles(cmd, true)
	if err != nil {
		return err
	}
	var jobsErr error // the jobs' failures, after the output is kept
	defer func() {
		if err = s.close(cmd, err); err == nil {
			err = jobsErr
		}
	}()
	if ops, err = f.sharded(cmd, ops); err != nil {
		return err
	}
	hopts := f.dev.openOptions(cmd, s.cache)
	drv, err := hal.OpenDriver(vk.DriverName, hopts.Driver)
	if err != nil {
		return openError("", err)
	}
	s.closers = append(s.closers, drv.Release) // after its devices
	infos, err := chosenDevices(drv, f.dev.device)
	if err != nil {
		return err
	}
	// Each device's conditions are its own.
	devs, devOpts := make([]hal.Device, len(infos)), make([]autotune.Options, len(infos))
	for i, info := range infos {
		hopts.Device = strconv.Itoa(info.Index)
		if devs[i], err = hal.OpenOn(cmd.Context(), drv, hopts); err != nil {
			return openError("", status.Annotatef(err, "opening device %d (%s)", info.Index, info.Name))
		}
		devOpts[i] = opts
		if _, err := s.add(cmd, devs[i], devs[i].Release, &devOpts[i]); err != nil {
			return err
		}
	}
	start := time.Now()
	all, err := tuneAll(cmd.Context(), devs, devOpts, s.cache, ops, manifestTables(ops), sizes, f.force)
	took := time.Since(start)
	if err != nil {
		return err
	}
	if f.format == "json" {
		err = writeJSON(s.out, allDevicesJSON(all, took))
	} else {
		err = writeAllDevices(s.out, all, took, terminalWidth(s.out))
	}
	if err != nil {
		return err
	}
	// Every job's outcome is written, -o's file too, whatever became of
	// the others: the command's status is what the failures come to.
	jobsErr = jobsError(cmd.Context(), devs, all)
	return nil
}

// jobsError is what all's jobs, on devs, come to as tune judges an
// operation's: the first failure that is not a job's own (a lost device);
// else the operations that could not be measured (operationsOwn, or no
// candidate ran); else a candidate that computed a wrong result; else
// nil.
func jobsError(ctx context.Context, devs []hal.Device, all []autotune.JobResult) error {
	var failed opFailures
	var benches []results.Benchmark
	for _, r := range all {
		i := slices.IndexFunc(devs, func(d hal.Device) bool { return d.Info().Index == r.Device.Index })
		switch {
		case r.Err != nil && r.Entry == nil && r.Tuner >= 0 && i >= 0 && operationsOwn(ctx, devs[i], r.Err):
			failed.failed(r.Job.Op, r.Job.Size, r.Err)
		case r.Err != nil && (r.Entry == nil || status.CodeOf(r.Err) != status.FailedPrecondition):
			return r.Err
		case r.Entry != nil:
			failed.noneRan(r.Job.Op, r.Job.Size, r.Entry)
			benches = append(benches, benchmarksOf(r.Job.Op, r.Entry, nil)...)
		}
	}
	return cmp.Or(failed.err(len(all)), wrongResult(benches))
}

// chosenDevices enumerates drv's devices, narrowed by --device where it
// is set: a comma-separated list of devices, as a runner that shares its
// GPUs with other jobs needs.
func chosenDevices(drv hal.Driver, device string) ([]hal.DeviceInfo, error) {
	infos, err := drv.Enumerate()
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, status.New(status.Unavailable, "no Vulkan devices")
	}
	if device == "" {
		return infos, nil
	}
	var chosen []hal.DeviceInfo
	seen := map[int]bool{}
	for _, spec := range strings.Split(device, ",") {
		spec = strings.TrimSpace(spec)
		i, err := hal.SelectDevice(infos, spec)
		if err != nil {
			return nil, openError(spec, err)
		}
		if !seen[i] {
			seen[i] = true
			chosen = append(chosen, infos[i])
		}
	}
	return chosen, nil
}

// tuneAll tunes ops on every device of devs at once, each with its options
// of opts (autotune.TuneAll groups the devices by hardware). An operation
// that tables names (a manifest's) is committed to that table, the others
// to the options' own.
func tuneAll(ctx context.Context, devs []hal.Device, opts []autotune.Options, cache *store.Store, ops []kernels.Operation, tables map[string]string, sizes sizePlan, force bool) ([]autotune.JobResult, error) {
	names, byTuner := groupBy(ops, func(op kernels.Operation) string { return tables[op.Name()] })
	var tuners []*autotune.Tuner
	tunerName := map[string]string{} // a table's tuner -> its name in tables
	for i, d := range devs {
		for _, t := range names {
			tuner := autotune.NewTuner(d, cache, inTable(opts[i], t))
			tunerName[tuner.Table().Tuner] = t
			tuners = append(tuners, tuner)
		}
	}
	return autotune.TuneAll(ctx, tuners, func(table store.Table, info hal.DeviceInfo) []autotune.Job {
		var jobs []autotune.Job
		for _, op := range byTuner[tunerName[table.Tuner]] {
			jobs = append(jobs, autotune.Job{Op: op, Size: sizes.sizeFor(op, info)})
		}
		return jobs
	}, force)
}

// manifestTables maps each operation of ops that comes from a manifest to
// the tune cache table its winners go to (manifest.TunerOf).
func manifestTables(ops []kernels.Operation) map[string]string {
	tables := map[string]string{}
	for _, op := range ops {
		if t, ok := manifest.TunerOf(op); ok {
			tables[op.Name()] = t
		}
	}
	return tables
}

type jobJSON struct {
	Op      string          `json:"op"`
	Size    string          `json:"size"`
	Device  int             `json:"device"`
	Retried int             `json:"retried,omitempty"`
	TookS   float64         `json:"took_s"`
	Error   string          `json:"error,omitempty"`
	Entry   *autotune.Entry `json:"entry,omitempty"`
}

func allDevicesJSON(all []autotune.JobResult, took time.Duration) any {
	jobs := make([]jobJSON, len(all))
	for i, r := range all {
		j := jobJSON{Op: r.Job.Op.Name(), Size: r.Job.Size.String(), Device: r.Device.Index, Retried: r.Retried, TookS: r.Took.Seconds(), Entry: r.Entry}
		if r.Tuner < 0 {
			j.Device = -1
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		if r.Err != nil && r.Entry == nil { // as run records an operation that failed: each candidate, failed, saying why
			j.Entry = failedEntry(r.Job.Op, r.Job.Size, j.Error)
		}
		jobs[i] = j
	}
	return struct {
		TookS float64   `json:"took_s"`
		Jobs  []jobJSON `json:"jobs"`
	}{took.Seconds(), jobs}
}

// writeAllDevices writes the jobs for a person: a table per hardware,
// under its name; the device that answered (it tuned, or read the cache)
// and the one that measured the answer, by its index and its UUID
// shortened as git shortens hashes; under the table, each job retried
// and each error, whole; in lines of width.
func writeAllDevices(w io.Writer, all []autotune.JobResult, took time.Duration, width tableWidth) error {
	hardware, byHardware := groupBy(all, func(r autotune.JobResult) string { return r.Table.Hardware })
	var uuids []string
	for _, r := range all {
		if e := r.Entry; e != nil {
			uuids = append(uuids, measuredBy(e.Device, 0))
		}
	}
	short := uniquePrefix(uuids)
	var b strings.Builder
	for _, hw := range hardware {
		wrapAt(&b, width.lineWidth(), "", hw)
		g := width.grid("  ", 2)
		g.add("operation", "size", "winner", "median", "device", "measured by", "took")
		var notes []string
		for _, r := range byHardware[hw] {
			winner, med, by, measured := "-", "-", "-", "-"
			if r.Tuner >= 0 {
				by = strconv.Itoa(r.Device.Index)
			}
			if e := r.Entry; e != nil && e.Fastest >= 0 {
				winner = e.FastestName
				if s := e.Results[e.Fastest].Stats; s != nil {
					med = report.Seconds(s.Median)
				}
				measured = measuredBy(e.Device, short)
			}
			what := r.Job.Op.Name() + " " + r.Job.Size.String()
			if r.Retried > 0 {
				notes = append(notes, fmt.Sprintf("%s: retried after %s", what, plural(r.Retried, "lost device", "lost devices")))
			}
			if r.Err != nil {
				winner = "failed"
				notes = append(notes, what+" failed: "+r.Err.Error())
			}
			g.add(r.Job.Op.Name(), r.Job.Size.String(), winner, med, by, measured, r.Took.Round(time.Millisecond).String())
		}
		g.write(&b)
		wrapAt(&b, width.lineWidth(), "  ", notes...)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d jobs on every device at once in %v\n", len(all), took.Round(time.Millisecond))
	_, err := io.WriteString(w, b.String())
	return err
}

// measuredBy is how the table names the device an entry's Device string
// names ("index:name:uuid"): "I (UUID)", the UUID's first n hex
// digits; the UUID alone where n is 0; a string of another form as is.
func measuredBy(device string, n int) string {
	index, rest, ok := strings.Cut(device, ":")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i < 0 {
		return device
	}
	uuid := rest[i+1:]
	if n == 0 {
		return uuid
	}
	return fmt.Sprintf("%s (%s)", index, uuid[:min(n, len(uuid))])
}

// uniquePrefix is how many leading characters tell the strings ids apart,
// 7 at least, as git shortens hashes.
func uniquePrefix(ids []string) int {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	n := 7
	for i := 1; i < len(ids); i++ {
		common := 0
		for common < min(len(ids[i-1]), len(ids[i])) && ids[i-1][common] == ids[i][common] {
			common++
		}
		n = max(n, common+1)
	}
	return n
}
