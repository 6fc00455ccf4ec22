package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/vk"
)

// tuneAllDevices tunes ops on every device at once: devices of the same
// hardware share the work (each key is tuned once, by whichever takes it
// first), and a device lost on the way gives its key back to its twins.
func tuneAllDevices(cmd *cobra.Command, f *benchFlags, args []string, force bool) (err error) {
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
	sizes, err := planSizes(f.sizes, ops)
	if err != nil {
		return err
	}
	cache, err := f.cache.open(cmd, true)
	if err != nil {
		return err
	}
	out, err := openOutput(cmd, f.output, cache.Path())
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
	infos, err := drv.Enumerate()
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		return status.New(status.Unavailable, "no Vulkan devices")
	}
	// --device narrows the set: a comma-separated list of devices, as a
	// runner that shares its GPUs with other jobs needs.
	if f.dev.device != "" {
		var chosen []hal.DeviceInfo
		seen := map[int]bool{}
		for _, spec := range strings.Split(f.dev.device, ",") {
			spec = strings.TrimSpace(spec)
			i, err := hal.SelectDevice(infos, spec)
			if err != nil {
				return deviceSpecError(spec, err)
			}
			if !seen[i] {
				seen[i] = true
				chosen = append(chosen, infos[i])
			}
		}
		infos = chosen
	}
	var devs []hal.Device
	defer func() {
		for _, d := range devs {
			err = status.Join(err, savePipelineCache(d, cache), d.Release())
		}
	}()
	groups := map[string][]*autotune.Tuner{}
	var order []string
	for _, info := range infos {
		hopts.Device = strconv.Itoa(info.Index)
		d, err := hal.OpenOn(ctx, drv, hopts)
		if err != nil {
			return status.Annotatef(err, "opening device %d (%s)", info.Index, info.Name)
		}
		devs = append(devs, d)
		hw := info.Hardware()
		if _, ok := groups[hw]; !ok {
			order = append(order, hw)
		}
		// Each device's conditions are its own.
		dopts := opts
		_, closeTelemetry, err := withTelemetry(&dopts, info)
		if err != nil {
			return err
		}
		defer closeTelemetry()
		groups[hw] = append(groups[hw], autotune.NewTuner(d, cache, dopts))
	}
	start := time.Now()
	results := make([][]autotune.JobResult, len(order))
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for g, hw := range order {
		tuners := groups[hw]
		var jobs []autotune.Job
		for _, op := range ops {
			jobs = append(jobs, autotune.Job{Op: op, Size: sizes.sizeFor(op, tuners[0].Device().Info())})
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[g], errs[g] = autotune.TuneAll(ctx, tuners, jobs, force)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if err := status.Join(errs...); err != nil {
		return err
	}
	var all []autotune.JobResult
	for _, r := range results {
		all = append(all, r...)
	}
	if f.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(allDevicesJSON(all, took)); err != nil {
			return err
		}
	} else if err := writeAllDevices(out, all, took); err != nil {
		return err
	}
	for _, r := range all {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
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

func writeAllDevices(w interface{ Write([]byte) (int, error) }, all []autotune.JobResult, took time.Duration) error {
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
				med = fmtSeconds(s.Median)
			}
			measured = e.Device
		}
		if r.Retried > 0 {
			note = fmt.Sprintf("retried after %d lost device(s)", r.Retried)
		}
		if r.Err != nil {
			note = oneLine(r.Err.Error(), 100)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Table.Hardware, r.Job.Op.Name(), kernels.Size(r.Job.Size), winner, med, by, measured, r.Took.Round(time.Millisecond), note)
	}
	fmt.Fprintf(tw, "\n%d jobs on every device at once in %v\n", len(all), took.Round(time.Millisecond))
	return tw.Flush()
}
