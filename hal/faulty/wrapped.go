package faulty

// wrapped is what the wrapper of every object a device creates holds: the
// device, whose plan decides the faults, and the object it wraps.
type wrapped[T interface{ Release() error }] struct {
	dev   *device
	inner T
}

func (w *wrapped[T]) unwrapped() T { return w.inner }

// unwrap returns the object x wraps if x is a wrapper, else x, so that a
// foreign object reaches the inner device as it is, to be refused there.
func unwrap[T any](x T) T {
	if w, ok := any(x).(interface{ unwrapped() T }); ok {
		return w.unwrapped()
	}
	return x
}

// Release is counted, and never made to fail: the error model promises
// that releasing works.
func (w *wrapped[T]) Release() error {
	w.dev.plan.decide(Release, true)
	return w.inner.Release()
}

// create makes an object through the inner device with newInner, unless
// the fault check of call c fails it, and wraps it with wrap.
func create[T interface{ Release() error }](d *device, c Call, newInner func() (T, error), wrap func(wrapped[T]) T) (T, error) {
	var none T
	if _, err := d.enter(c); err != nil {
		return none, err
	}
	x, err := newInner()
	if err != nil {
		return none, err
	}
	return wrap(wrapped[T]{dev: d, inner: x}), nil
}

// forward makes a call of kind c through f, which calls the inner object,
// unless the fault check fails it.
func (d *device) forward(c Call, f func() error) error {
	if _, err := d.enter(c); err != nil {
		return err
	}
	return f()
}
