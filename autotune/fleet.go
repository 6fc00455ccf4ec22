package autotune

import (
	"context"
	"errors"
	"slices"
	"sync"
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

// JobResult is what became of one job on one group of identical devices.
type JobResult struct {
	Job Job
	// Table is the group's table: the hardware the answer is for.
	Table store.Table
	// Tuner is the index, in TuneAll's tuners, of the one that answered;
	// -1 when none could. Device is its device. (Entry.Device names the
	// device that measured, another one when the answer came from the
	// cache.)
	Tuner  int
	Device hal.DeviceInfo
	Entry  *Entry
	// Err is the job's error; nil when Entry holds the answer.
	Err error
	// Took is the wall time the job took on Device.
	Took time.Duration
	// Retried counts the devices of the group lost while they had the job.
	Retried int
}

// TuneAll tunes every job on every tuner at once, one goroutine per tuner.
// Tuners whose tables are the same (devices of the same hardware and the
// same tuner name) form a group that shares the work: each job is tuned
// once, by whichever device of the group takes it first, so two identical
// GPUs finish about twice as fast as one. A device lost during this stops,
// commits nothing from the tune it was running, and the job it had taken
// goes back to its group, to be tuned by another device; the others go
// on. Each group answers every job; the outcomes come back in group order,
// then job order.
//
// The error is nil unless ctx ended; failures of single jobs, and groups
// whose every device was lost, are in the outcomes.
func TuneAll(ctx context.Context, tuners []*Tuner, jobs []Job, force bool) ([]JobResult, error) {
	var groups [][]*Tuner
	index := map[store.Table]int{}
	for _, t := range tuners {
		i, ok := index[t.table]
		if !ok {
			i = len(groups)
			index[t.table] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], t)
	}
	results := make([][]JobResult, len(groups))
	queues := make([]*jobQueue, len(groups))
	var wg sync.WaitGroup
	for g, members := range groups {
		q := newJobQueue(jobs)
		queues[g] = q
		results[g] = make([]JobResult, len(jobs))
		for _, t := range members {
			wg.Go(func() { q.work(ctx, t, slices.Index(tuners, t), force, results[g]) })
		}
	}
	wg.Wait()
	var out []JobResult
	for g, r := range results {
		queues[g].finish(groups[g], r)
		out = append(out, r...)
	}
	if err := ctx.Err(); err != nil {
		return out, status.Wrap(err, status.CodeOf(err), "autotune: TuneAll")
	}
	return out, nil
}

// jobQueue hands a group's jobs to its devices.
type jobQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []Job
	next    []int // indices of jobs not yet taken, in order
	busy    int   // jobs being tuned now
	retried []int
}

func newJobQueue(jobs []Job) *jobQueue {
	q := &jobQueue{jobs: jobs, retried: make([]int, len(jobs))}
	q.cond = sync.NewCond(&q.mu)
	for i := range jobs {
		q.next = append(q.next, i)
	}
	return q
}

// take returns the next job, waiting while the queue is empty but a job in
// flight may come back; -1 when there is nothing left.
func (q *jobQueue) take() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.next) == 0 && q.busy > 0 {
		q.cond.Wait()
	}
	if len(q.next) == 0 {
		return -1
	}
	i := q.next[0]
	q.next = q.next[1:]
	q.busy++
	return i
}

// done ends job i; with giveBack, it returns to the front of the queue.
func (q *jobQueue) done(i int, giveBack bool) {
	q.mu.Lock()
	q.busy--
	if giveBack {
		q.retried[i]++
		q.next = append([]int{i}, q.next...)
	}
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *jobQueue) work(ctx context.Context, t *Tuner, ti int, force bool, out []JobResult) {
	for ctx.Err() == nil && t.Err() == nil {
		i := q.take()
		if i < 0 {
			return
		}
		j := q.jobs[i]
		start := time.Now()
		e, err := t.Tune(ctx, j.Op, j.Size, force)
		if errors.Is(err, hal.ErrDeviceLost) || (err != nil && t.Err() != nil) {
			// Nothing of this tune was committed; a twin takes the job.
			q.done(i, true)
			return
		}
		out[i] = JobResult{Job: j, Table: t.table, Tuner: ti, Device: t.dev.Info(), Entry: e, Err: err, Took: time.Since(start)}
		q.done(i, false)
	}
}

// finish fills in the jobs no device could answer (every device of the
// group was lost, or ctx ended), once every worker has stopped.
func (q *jobQueue) finish(members []*Tuner, out []JobResult) {
	var cause error
	for _, t := range members {
		if err := t.Err(); err != nil {
			cause = err
		}
	}
	if cause == nil {
		cause = status.New(status.Cancelled, "autotune: stopped before this job")
	}
	for _, i := range q.next {
		out[i] = JobResult{Job: q.jobs[i], Table: members[0].table, Tuner: -1,
			Err: status.Annotatef(cause, "autotune: no %s device of the group was left to tune it", members[0].table.Hardware)}
	}
	for i := range out {
		out[i].Retried = q.retried[i]
	}
}
