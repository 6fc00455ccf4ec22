package faulty

import (
	"cmp"
	"context"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// driver wraps the devices its Open opens; the rest is the inner driver's.
type driver struct {
	hal.Driver
	planFor func(index int) *Plan
}

// WrapDriver returns drv wrapped so that every device it opens is wrapped
// with the plan planFor returns for the device's index (an empty plan if
// planFor is nil or returns nil). Open counts as a call of the plan and can
// be made to fail: the inner driver is then not asked. Releasing the
// wrapped driver releases drv.
func WrapDriver(drv hal.Driver, planFor func(index int) *Plan) hal.Driver {
	return &driver{Driver: drv, planFor: planFor}
}

func (d *driver) Open(ctx context.Context, index int, opts hal.DeviceOptions) (hal.Device, error) {
	var plan *Plan
	if d.planFor != nil {
		plan = d.planFor(index)
	}
	plan = cmp.Or(plan, NewPlan())
	f := plan.decide(Open, false)
	if f.lost != nil {
		// A device lost while it is being opened is not opened.
		return nil, status.Join(status.Annotate(hal.ErrDeviceLost, "faulty: device lost while opening"), f.lost)
	}
	if f.err != nil {
		return nil, f.err
	}
	dev, err := d.Driver.Open(ctx, index, opts)
	if err != nil {
		return nil, err
	}
	return Wrap(dev, plan), nil
}
