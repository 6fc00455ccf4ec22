package kernels

import (
	"context"
	"encoding/binary"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Poison is the 32-bit pattern RecordPoison fills outputs with: a NaN as a
// float, and a value no built-in integer output takes everywhere, so that a
// kernel that writes nothing fails Verify instead of passing on what an
// earlier candidate left.
const Poison uint32 = 0xffffffff

// Guard is the 32-bit pattern RecordPoison fills an output's slack past
// its elements with, and what Check requires to find there after a run.
// Not Poison: a kernel that reads past the end and writes back, y = a·x +
// y over too many elements, would turn a NaN into the same NaN (its bits
// carried through), but 1.1 as a float (or 1066192077 as an integer) into
// something else.
const Guard uint32 = 0x3f8ccccd

// RecordPoison records filling every Output and Scratch buffer of p with
// Poison, and its slack past its elements with Guard. Record it, then
// cb.Barrier(), before a run whose results will be verified.
func RecordPoison(cb hal.CommandBuffer, p Problem) error {
	for _, b := range p.Buffers() {
		if b.Role == Input {
			continue
		}
		size, end := b.Size()&^3, guardStart(b)
		if err := cb.Fill(b.Buffer, 0, end, Poison); err != nil {
			return status.Annotatef(err, "kernels: poisoning %s", b.Name)
		}
		if end < size {
			if err := cb.Fill(b.Buffer, end, size-end, Guard); err != nil {
				return status.Annotatef(err, "kernels: guarding %s", b.Name)
			}
		}
	}
	return nil
}

// guardStart is where b's slack begins: after its elements, rounded up to
// a whole word; the whole buffer when its element type has no known size.
func guardStart(b Operand) int64 {
	size := b.Size() &^ 3
	if n := b.DType.Bytes(); n > 0 {
		return min((b.Len*int64(n)+3)&^3, size)
	}
	return size
}

// Run records one run of candidate cand of p with exe, preceded by
// RecordPoison (and its reset, for a Resetter), submits it to dev and
// waits for it: then p.Verify(ctx, cand) checks it.
func Run(ctx context.Context, dev hal.Device, p Problem, exe hal.Executable, cand int) error {
	return Execute(ctx, dev, func(cb hal.CommandBuffer) error {
		if err := RecordPoison(cb, p); err != nil {
			return err
		}
		if err := cb.Barrier(); err != nil {
			return err
		}
		if r, ok := p.(Resetter); ok {
			if err := r.RecordReset(cb, cand); err != nil {
				return err
			}
			if err := cb.Barrier(); err != nil {
				return err
			}
		}
		return p.Record(cb, exe, cand)
	})
}

// Execute begins a new command buffer, lets rec record into it, ends it,
// submits it to dev and waits: the one record-submit-wait. Whether the
// wait succeeds or ctx ends first, the command buffer is released at once:
// the submission holds what it uses until it is done (hal's Ownership).
func Execute(ctx context.Context, dev hal.Device, rec func(hal.CommandBuffer) error) error {
	return ExecuteWith(ctx, dev, dev.CreateCommandBuffer, hal.CommandBuffer.Release, rec)
}

// ExecuteWith is Execute with its command buffer from get (neither
// recording nor in flight), given to put when it is done or was never
// submitted: for a caller that submits often and keeps command buffers
// for reuse (one can be begun again once its submission is done). If ctx
// ends first, the command buffer is still in flight: it is released, not
// given to put.
func ExecuteWith(ctx context.Context, dev hal.Device, get func() (hal.CommandBuffer, error), put func(hal.CommandBuffer) error, rec func(hal.CommandBuffer) error) error {
	cb, err := get()
	if err != nil {
		return err
	}
	err = cb.Begin()
	if err == nil {
		err = rec(cb)
	}
	if err == nil {
		err = cb.End()
	}
	if err != nil {
		return status.Join(err, put(cb))
	}
	fence, err := dev.Submit(cb)
	if err != nil {
		return status.Join(err, put(cb))
	}
	if err := fence.Wait(ctx); err != nil {
		return status.Join(err, fence.Release(), cb.Release())
	}
	return status.Join(fence.Release(), put(cb))
}

// VerifyCandidate checks candidate cand of op on dev at size: it prepares
// a problem from seed, returns why not (code Unimplemented) where the
// device cannot run the candidate there (CandidateAt), and otherwise
// builds it, runs it once and checks the result (Check), releasing all it
// made.
func VerifyCandidate(ctx context.Context, dev hal.Device, op Operation, size Size, cand int, seed uint64) (err error) {
	cands := op.Candidates()
	if err := CheckCandidate(op.Name(), cand, len(cands)); err != nil {
		return err
	}
	defer func() { err = status.Annotatef(err, "kernels: %s/%s at %v", op.Name(), cands[cand].Name, size) }()
	p, err := op.Prepare(ctx, dev, size, seed)
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, p.Release()) }()
	c, err := CandidateAt(p, cands[cand], cand, dev.Info())
	if err != nil {
		return err
	}
	desc := c.Executable()
	desc.Label = op.Name() + "/" + c.Name
	exe, err := dev.CreateExecutable(desc)
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, exe.Release()) }()
	if err := Run(ctx, dev, p, exe, cand); err != nil {
		return err
	}
	return Check(ctx, p, cand)
}

// GuardBytes is the slack past an output's elements that RecordPoison
// fills with Guard and Check reads back.
const GuardBytes = 4096

// Check checks candidate cand's run of p, which RecordPoison preceded:
// first that no output or scratch buffer was written past its Len
// elements (its slack, up to GuardBytes, still holds Guard), then
// p.Verify. Either failure matches ErrWrongResult, the first naming the
// buffer.
func Check(ctx context.Context, p Problem, cand int) error {
	for _, b := range p.Buffers() {
		if b.Role == Input {
			continue // not written
		}
		end := guardStart(b)
		slack := min(b.Size()&^3, end+GuardBytes)
		if slack <= end {
			continue // no slack, or (an element type of no known size) no end
		}
		got := make([]byte, slack-end)
		if err := b.Read(ctx, end, got); err != nil {
			return status.Annotatef(err, "kernels: reading past the end of %s", b.Name)
		}
		for i := 0; i+4 <= len(got); i += 4 {
			if w := binary.LittleEndian.Uint32(got[i:]); w != Guard {
				return status.Wrapf(ErrWrongResult, status.OK, "kernels: the kernel wrote past the end of buffer %s: the word at byte %d after its %d elements is 0x%08x, not the 0x%08x put there", b.Name, end+int64(i)-b.Len*int64(b.DType.Bytes()), b.Len, w, Guard)
			}
		}
	}
	return p.Verify(ctx, cand)
}
