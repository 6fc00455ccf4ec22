package results

// WithoutNet is opts judging no benchmark net of the probe, as Compare did
// before it did: the before of BenchmarkCompareGate's before and after.
func WithoutNet(opts CompareOptions) CompareOptions {
	opts.withoutNet = true
	return opts
}
