package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk"
)

// tuneAllDevices tunes ops on every device at once: devices of the same
// hardware share the work (each key is tuned once, by whichever takes it
// first), and a device lost on the way gives its key back to its twins.
func tuneAllDevices(cmd *cobra.Command, f *tuneFlags, args []string) (err error) {
	if f.format != "table" && f.format != "json" {
		return usageError{fmt.Errorf("--all-devices writes table or json, not %q", f.format)}
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	ops, err := f.operations(args)
	if err != nil {
		return err
	}
	sizes, cache, out, err := f.planAndOpen(cmd, ops)
	if err != nil {
		return err
	}
	defer func() { err = out.finish(err) }()
	ctx := cmd.Context()
	hopts := f.dev.openOptions(cmd, cache)
	drv, err := hal.OpenDriver(vk.DriverName, hopts.Driver)
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, drv.Release()) }()
	infos, err := chosenDevices(drv, f.dev.device)
	if err != nil {
		return err
	}
	var tg tunerGroups
	defer func() { err = tg.release(cache, err) }()
	if err := tg.open(ctx, drv, hopts, infos, opts, cache); err != nil {
		return err
	}
	start := time.Now()
	all, err := tg.tuneAll(ctx, cache, ops, manifestTables(ops), sizes, f.force)
	took := time.Since(start)
	if err != nil {
		return err
	}
	if f.format == "json" {
		err = writeJSON(out, allDevicesJSON(all, took))
	} else {
		err = writeAllDevices(out, all, took)
	}
	if err != nil {
		return err
	}
	for _, r := range all {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
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
			return nil, deviceSpecError(spec, err)
		}
		if !seen[i] {
			seen[i] = true
			chosen = append(chosen, infos[i])
		}
	}
	return chosen, nil
}

// tunerGroups are the devices, grouped by hardware, each with its
// options (its own telemetry), and what release gives back: the devices,
// and each device's telemetry.
type tunerGroups struct {
	// order is the hardware in the order first seen; byHW its devices.
	order []string
	byHW  map[string][]groupDevice
	devs  []hal.Device
	// closers close the devices' telemetry, in reverse.
	closers []func()
}

// groupDevice is a device and the options its tuners measure with.
type groupDevice struct {
	dev  hal.Device
	opts autotune.Options
}

// open opens every device of infos on drv, each with its own telemetry,
// and a tuner on it. What it opened before an error, release gives back.
func (tg *tunerGroups) open(ctx context.Context, drv hal.Driver, hopts hal.OpenOptions, infos []hal.DeviceInfo, opts autotune.Options, cache *store.Store) error {
	tg.byHW = map[string][]groupDevice{}
	for _, info := range infos {
		hopts.Device = strconv.Itoa(info.Index)
		d, err := hal.OpenOn(ctx, drv, hopts)
		if err != nil {
			return status.Annotatef(err, "opening device %d (%s)", info.Index, info.Name)
		}
		tg.devs = append(tg.devs, d)
		hw := info.Hardware()
		if _, ok := tg.byHW[hw]; !ok {
			tg.order = append(tg.order, hw)
		}
		// Each device's conditions are its own.
		dopts := opts
		_, closeTelemetry, err := withTelemetry(&dopts, info)
		if err != nil {
			return err
		}
		tg.closers = append(tg.closers, closeTelemetry)
		tg.byHW[hw] = append(tg.byHW[hw], groupDevice{d, dopts})
	}
	return nil
}

// release closes the telemetry, last opened first, then saves each
// device's pipeline cache and releases it, joining their errors to err.
func (tg *tunerGroups) release(cache *store.Store, err error) error {
	for i := len(tg.closers) - 1; i >= 0; i-- {
		tg.closers[i]()
	}
	for _, d := range tg.devs {
		err = status.Join(err, savePipelineCache(d, cache), d.Release())
	}
	return err
}

// tuneAll tunes ops on every group at once, each group sharing its jobs
// among its devices, and returns every group's results in order. An
// operation that tables names (a manifest's) is committed to that table,
// the others to the options' own; a group tunes one table's operations
// after another, so that its devices never measure two at once.
func (tg *tunerGroups) tuneAll(ctx context.Context, cache *store.Store, ops []kernels.Operation, tables map[string]string, sizes sizePlan, force bool) ([]autotune.JobResult, error) {
	var order []string // tables, in the order of their first operation
	byTable := map[string][]kernels.Operation{}
	for _, op := range ops {
		t := tables[op.Name()]
		if _, ok := byTable[t]; !ok {
			order = append(order, t)
		}
		byTable[t] = append(byTable[t], op)
	}
	results := make([][]autotune.JobResult, len(tg.order))
	errs := make([]error, len(tg.order))
	var wg sync.WaitGroup
	for g, hw := range tg.order {
		devs := tg.byHW[hw]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, table := range order {
				var tuners []*autotune.Tuner
				for _, d := range devs {
					tuners = append(tuners, autotune.NewTuner(d.dev, cache, inTable(d.opts, table)))
				}
				var jobs []autotune.Job
				for _, op := range byTable[table] {
					jobs = append(jobs, autotune.Job{Op: op, Size: sizes.sizeFor(op, devs[0].dev.Info())})
				}
				r, err := autotune.TuneAll(ctx, tuners, jobs, force)
				results[g] = append(results[g], r...)
				if err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := status.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
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
		j := jobJSON{Op: r.Job.Op.Name(), Size: kernels.Size(r.Job.Size).String(), Device: r.Device.Index, Retried: r.Retried, TookS: r.Took.Seconds(), Entry: r.Entry}
		if r.Tuner < 0 {
			j.Device = -1
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		jobs[i] = j
	}
	return struct {
		TookS float64   `json:"took_s"`
		Jobs  []jobJSON `json:"jobs"`
	}{took.Seconds(), jobs}
}

func writeAllDevices(w io.Writer, all []autotune.JobResult, took time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "hardware\toperation\tsize\twinner\tmedian\tanswered by\tmeasured by\ttook\tnote")
	for _, r := range all {
		winner, med, by, measured, note := "-", "-", "-", "-", ""
		if r.Tuner >= 0 {
			by = fmt.Sprintf("device %d", r.Device.Index)
		}
		if e := r.Entry; e != nil && e.Fastest >= 0 {
			winner = e.FastestName
			if s := e.Results[e.Fastest].Stats; s != nil {
				med = report.Seconds(s.Median)
			}
			measured = e.Device
		}
		if r.Retried > 0 {
			note = fmt.Sprintf("retried after %d lost device(s)", r.Retried)
		}
		if r.Err != nil {
			note = report.OneLine(r.Err.Error(), 100)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Table.Hardware, r.Job.Op.Name(), kernels.Size(r.Job.Size), winner, med, by, measured, r.Took.Round(time.Millisecond), note)
	}
	fmt.Fprintf(tw, "\n%d jobs on every device at once in %v\n", len(all), took.Round(time.Millisecond))
	return tw.Flush()
}
