package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// sizePlan is what the --size flags ask of each operation: an explicit
// size, or none (the device's default, known once it is open).
type sizePlan map[string]kernels.Size

// sizeFor returns the size to measure op at on a device described by
// info.
func (p sizePlan) sizeFor(op kernels.Operation, info hal.DeviceInfo) kernels.Size {
	if s, ok := p[op.Name()]; ok {
		return s
	}
	return op.DefaultSize(info)
}

// planSizes checks every --size against every operation of ops, before any
// work: a size is either OP=SIZE, for the operation OP, or SIZE, for all
// of them, where SIZE is extents joined by 'x' (4096x4096x4096) or
// NAME=extent pairs (M=512,N=512,K=512). Anything that names neither an
// operation of ops nor a dimension of one, a size that does not fit an
// operation it applies to, and two sizes for the same operation are bad
// usage, each saying what would have been valid.
func planSizes(specs []string, ops []kernels.Operation) (sizePlan, error) {
	plan := sizePlan{}
	byName := map[string]kernels.Operation{}
	var names, dims []string
	for _, op := range ops {
		byName[op.Name()] = op
		names = append(names, op.Name())
		for _, d := range op.Dims() {
			if !slices.ContainsFunc(dims, func(x string) bool { return strings.EqualFold(x, d) }) {
				dims = append(dims, d)
			}
		}
	}
	given := map[string]string{} // operation → the --size that set it
	general := ""
	for _, spec := range specs {
		name, rest, named := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		op, isOp := byName[strings.ToLower(name)]
		switch {
		case named && isOp:
			size, err := kernels.ParseSize(op.Dims(), rest)
			if err != nil {
				return nil, usageError{fmt.Errorf("--size %s: %w (dimensions of %s: %s)", spec, err, op.Name(), strings.Join(op.Dims(), ", "))}
			}
			if prev, ok := given[op.Name()]; ok {
				return nil, usageError{fmt.Errorf("--size %s: %s already has --size %s", spec, op.Name(), prev)}
			}
			given[op.Name()] = spec
			plan[op.Name()] = size
		case named && !slices.ContainsFunc(dims, func(d string) bool { return strings.EqualFold(d, name) }):
			what := "an operation measured here"
			if _, err := catalogue.Lookup(strings.ToLower(name)); err == nil {
				what = "among the operations measured"
			}
			return nil, usageError{fmt.Errorf("--size %s: %q is neither %s (%s) nor a dimension of one (%s)", spec, name, what, strings.Join(names, ", "), strings.Join(dims, ", "))}
		default:
			if general != "" {
				return nil, usageError{fmt.Errorf("--size %s: a size for every operation is already given (--size %s); prefix OP= to size one operation", spec, general)}
			}
			general = spec
		}
	}
	if general == "" {
		return plan, nil
	}
	for _, op := range ops {
		if _, ok := given[op.Name()]; ok {
			continue
		}
		size, err := kernels.ParseSize(op.Dims(), general)
		if err != nil {
			return nil, usageError{fmt.Errorf("--size %s for %s (dimensions %s): %w; prefix OP= to size one operation", general, op.Name(), strings.Join(op.Dims(), ", "), err)}
		}
		plan[op.Name()] = size
	}
	return plan, nil
}
