// Package report draws result files for people: charts of every
// candidate's median time and 95% interval, a roofline per device, and
// the convergence of searches in tuning logs. It reads what vkbench run
// and vkbench cache export-log wrote and prints nothing itself.
//
// # Charts of result files
//
// Read the files, then write them in a format:
//
//	in, err := report.ReadFiles([]string{"base.json", "new.json"})
//	...
//	n, err := report.Write(w, report.HTML, in, report.Options{Peak: peakOf})
//
// Each operation (at one dtype and size) is one chart, a row per
// candidate measured; several files overlay, one point per file in the
// file's colour, so that a base and a new run read side by side. What a
// chart does not draw is in the notes under it. HTML is a self-contained
// page (the charts inline, a table per operation, nothing fetched); SVG
// and PNG put the charts one under the other.
//
// vkbench ab's reports (--format json) are read too (Input.AB): each is a
// chart of its pairs' ratios NEW/OLD with their 95% intervals, coloured by
// verdict, and a table of their medians, ratios and verdicts.
//
// # Roofline
//
// Options.Peak gives each hardware's roofs (peak bandwidth and FLOP/s).
// Operations that do arithmetic stand under them by arithmetic intensity
// and achieved GFLOP/s; operations that only move data are a note with
// their bandwidth. Without a peak the roofline is a note saying so.
//
// # Convergence
//
// Convergence draws tuning logs instead: the fastest time found after
// each evaluation, a line per search, a colour per strategy. IsTuneLog
// tells the two kinds of input apart.
//
// # Words
//
// Seconds, Interval, Rate and Reason write numbers and errors the way the
// charts and the command's tables both show them.
package report
