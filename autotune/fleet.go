package autotune

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// Job is one question for TuneAll: an operation at a size.
type Job struct {
	Op   kernels.Operation
	Size kernels.Size
}

// Shard returns the share of items that shard index of count takes: the
// items at positions index, index+count, index+2·count, ..., in order, so
// that the machines of a fleet that list the same work take shares none
// of the others takes, together all of it (vkbench tune --shard).
func Shard[T any](items []T, index, count int) []T {
	var out []T
	for i := index; i < len(items); i += count {
		out = append(out, items[i])
	}
	return out
}

// JobResult is what became of one job on one group of identical devices.
type JobResult struct {
	Job Job
	// Table is the group's table: the hardware the answer is for.
	Table store.Table
	// Tuner is the index, in TuneAll's tuners, of the one that answered
	// (-1 when none could), on Device, in Took; Err is the job's error.
	Tuner  int
	Device hal.DeviceInfo
	Entry  *Entry
	Err    error
	Took   time.Duration
	// Retried counts the devices of the group lost while they had the job.
	Retried int
}

// TuneAll tunes on every tuner at once. This is the one place that groups
// devices by hardware: tuners of one hardware form a group, which goes
// through its tables (in the order first seen) one after another; the
// tuners of one table share its jobs (jobs(table, info), info the first
// device's), each tuned once by whichever device takes it first. Groups
// of different hardware run at the same time. A device lost during this
// stops, and the job it had taken goes back to its group. The outcomes
// come back in group order, then table order, then job order.
//
// The error is nil unless ctx ended; failures of single jobs, and groups
// whose every device was lost, are in the outcomes.
func TuneAll(ctx context.Context, tuners []*Tuner, jobs func(table store.Table, info hal.DeviceInfo) []Job, force bool) ([]JobResult, error) {
	members := map[store.Table][]*Tuner{}
	var hardware []string // in the order first seen, as the tables of each
	tables := map[string][]store.Table{}
	for _, t := range tuners {
		hw := t.table.Hardware
		if tables[hw] == nil {
			hardware = append(hardware, hw)
		}
		if members[t.table] == nil {
			tables[hw] = append(tables[hw], t.table)
		}
		members[t.table] = append(members[t.table], t)
	}
	results := make([][]JobResult, len(hardware))
	var wg sync.WaitGroup
	for h, hw := range hardware {
		wg.Go(func() {
			for _, tb := range tables[hw] {
				g := members[tb]
				results[h] = append(results[h], tuneTable(ctx, tuners, g, jobs(tb, g[0].dev.Info()), force)...)
			}
		})
	}
	wg.Wait()
	out := slices.Concat(results...)
	if err := ctx.Err(); err != nil {
		return out, status.Wrap(err, status.CodeOf(err), "autotune: TuneAll")
	}
	return out, nil
}

// tuneTable tunes jobs on members, tuners of one table (of all), one
// goroutine each. A lone member builds the jobs it will measure after the
// first ahead (Prebuild); twins take jobs as they come, so none knows its
// next.
func tuneTable(ctx context.Context, all, members []*Tuner, jobs []Job, force bool) []JobResult {
	if len(members) == 1 {
		t := members[0]
		var ahead []Job
		for _, j := range jobs {
			if e, err := t.Stored(ctx, j.Op, j.Size); force || e == nil || err != nil {
				ahead = append(ahead, j)
			}
		}
		if len(ahead) > 1 {
			defer Prebuild(ctx, t.dev, t.opts, ahead[1:])()
		}
	}
	out := make([]JobResult, len(jobs)) // Retried counted before the job is answered
	// The jobs not taken; a job whose device was lost comes back for a
	// twin. It closes once every job is answered.
	queue := make(chan int, len(jobs))
	for i := range jobs {
		queue <- i
	}
	var left atomic.Int64 // jobs not answered
	left.Store(int64(len(jobs)))
	if len(jobs) == 0 {
		close(queue)
	}
	var wg sync.WaitGroup
	for _, t := range members {
		ti := slices.Index(all, t)
		wg.Go(func() {
			for ctx.Err() == nil && t.Err() == nil {
				i, ok := <-queue
				if !ok {
					return
				}
				start := time.Now()
				e, err := t.Tune(ctx, jobs[i].Op, jobs[i].Size, force)
				if errors.Is(err, hal.ErrDeviceLost) || (err != nil && t.Err() != nil) {
					out[i].Retried++ // nothing of this tune was committed
					queue <- i
					return
				}
				out[i] = JobResult{Job: jobs[i], Table: t.table, Tuner: ti, Device: t.dev.Info(), Entry: e, Err: err, Took: time.Since(start), Retried: out[i].Retried}
				if left.Add(-1) == 0 {
					close(queue)
				}
			}
		})
	}
	wg.Wait()
	// What is left, no device could answer.
	if left.Load() > 0 {
		close(queue)
	}
	var cause error = status.New(status.Cancelled, "autotune: stopped before this job")
	for _, t := range members {
		if err := t.Err(); err != nil {
			cause = err
		}
	}
	for i := range queue {
		out[i] = JobResult{Job: jobs[i], Table: members[0].table, Tuner: -1, Retried: out[i].Retried,
			Err: status.Annotatef(cause, "autotune: no %s device of the group was left to tune it", members[0].table.Hardware)}
	}
	return out
}
