package results

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// ab decides sequentially: rounds are added until each pair's verdict is
// decided, so the bounds on its ratio are looked at after every round.
// A fixed-sample interval (a t interval, say) looked at so is wrong far
// more often than its level says: with enough looks, any such interval
// excludes the truth at some point. MedianBounds is instead a confidence
// sequence: the chance that its bounds exclude the true median at ANY
// number of rounds, however many are looked at, is at most 1 − level.
//
// It bounds the median of the rounds' log ratios, with no assumption on
// their distribution: the confidence sequence for a quantile of Howard &
// Ramdas, "Sequential estimation of quantiles with applications to
// A/B-testing and best-arm identification", Bernoulli 28(3), 2022
// (arXiv:1906.09712), built on the conjugate-mixture boundaries of Howard,
// Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric, nonasymptotic
// confidence sequences", Annals of Statistics 49(2), 2021. For a value m,
// the count of rounds at or below m, against the count a fair coin would
// give, is a nonnegative martingale under "m is the median" once mixed
// over the coin's bias (here a Beta(½, ½) mixture: a beta-binomial
// likelihood ratio); by Ville's inequality it exceeds 1/α with chance at
// most α, at any time. The sequence is every m not yet excluded so, an
// interval between two order statistics.
//
// Why this and not a Gaussian sequence (a mixture t-test) or an
// empirical-Bernstein one over the rounds' mean: on a loaded CPU a round
// now and then measures NEW/OLD at 2.7 or 0.86 where the others measure
// 1.10, and one such round widens a bound on the mean (or breaks a
// normal model) for many rounds after; a count of rounds on either side
// of m does not care how far out one lies. It needs neither a bound on
// the values (empirical Bernstein's, whose width at ten rounds is its
// range times three) nor identically distributed rounds: it holds as
// long as each round, given the ones before it, is as likely to fall
// below the true median as above it, which is what interleaving OLD and
// NEW in a shuffled order gives when the machine's load changes from one
// round to the next. Its price: at 95% it needs 7 rounds before it
// bounds anything (all 7 then on one side of m): MinSequentialRounds.

// MinSequentialRounds is the fewest rounds with which MedianBounds at 95%
// bounds the median at all: before it, either bound is infinite.
const MinSequentialRounds = 7

// mixture is the Beta(a, a) mixture over a coin's bias in MedianBounds:
// ½ (Jeffreys') decides at 7 rounds where a uniform one needs 8, and is
// as quick as either at the fractions a loaded machine gives (a round in
// seven on the wrong side of the threshold).
const mixture = 0.5

// MedianBounds returns the bounds [lo, hi] of a confidence sequence, at
// level confidence, for the median of the distribution that the values
// xs were drawn from, in the order drawn; −Inf and +Inf until there are
// enough values (MinSequentialRounds at 0.95).
func MedianBounds(xs []float64, confidence float64) (lo, hi float64) {
	n := len(xs)
	sorted := slices.Sorted(slices.Values(xs))
	// The counts k of values at or below m that leave m in the sequence
	// are those whose mixture ratio stays under 1/α; they form an interval
	// [kLo, kHi] around n/2, and m between the kLo-th and the (kHi+1)-th
	// values (from 1) has such a count.
	limit := math.Log(1 / (1 - confidence))
	kLo, kHi := -1, -1
	for k := 0; k <= n; k++ {
		if logMixtureRatio(n, k) < limit {
			if kLo < 0 {
				kLo = k
			}
			kHi = k
		}
	}
	lo, hi = math.Inf(-1), math.Inf(1)
	if kLo > 0 {
		lo = sorted[kLo-1]
	}
	if kHi >= 0 && kHi < n {
		hi = sorted[kHi]
	}
	return lo, hi
}

// logMixtureRatio is the logarithm of the beta-binomial likelihood ratio
// of k successes in n against a fair coin: 2^n B(a+k, a+n−k) / B(a, a).
func logMixtureRatio(n, k int) float64 {
	a := mixture
	return float64(n)*math.Ln2 + mathext.Lbeta(a+float64(k), a+float64(n-k)) - mathext.Lbeta(a, a)
}
