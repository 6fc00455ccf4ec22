package results

// WithoutNet is opts judging no benchmark net of the probe, as Compare did
// before it did: the before of BenchmarkCompareGate's before and after.
func WithoutNet(opts CompareOptions) CompareOptions {
	opts.withoutNet = true
	return opts
}

// KeepOutliers is opts leaving no round out as an outlier, as Compare did
// before it did.
func KeepOutliers(opts CompareOptions) CompareOptions {
	opts.keepOutliers = true
	return opts
}

// WelchTest is welchTest of single runs: its p-value and degrees of
// freedom.
func WelchTest(s1, s2 []float64, extra float64) (p, dof float64) {
	p, _, dof, _ = welchTest(s1, s2, nil, nil, extra)
	return p, dof
}
