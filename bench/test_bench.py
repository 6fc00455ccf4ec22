"""Tests of the figures' provenance, run by scripts/test.sh:

    python3 -m unittest discover -s bench -p 'test_*.py'

bench/RESULTS.md must say, for every section of figures, the tracked
command that produced them (or that none did), and every script it names
must be in the repository; bench/baseline.py's theoretical fp32 peak must
use the maximum SM clock, whatever the clock of the moment, and say that it
is theoretical.
"""
import os
import re
import subprocess
import sys
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

import baseline  # noqa: E402  (after the path is set)
import spread  # noqa: E402
import table  # noqa: E402

# A command a section may name as its producer, in backquotes.
PRODUCER = re.compile(r"`[^`]*(?:\bbench/[\w.-]+|\.devbin/\w+|\bvkbench |\bgo test )[^`]*`")
# What a section whose figures no tracked command produced says instead.
NO_PRODUCER = re.compile(r"no tracked (?:producer|script|command)", re.I)


def sections():
    """The dated sections of RESULTS.md: (title, text)."""
    with open(os.path.join(BENCH, "RESULTS.md"), encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^## ", text, flags=re.M)
    return [(p.split("\n", 1)[0], p) for p in parts[1:] if re.match(r"\d{4}-\d{2}-\d{2}", p)]


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return set(out.stdout.split())


class ResultsProvenance(unittest.TestCase):
    def test_every_section_names_its_producer(self):
        secs = sections()
        self.assertGreater(len(secs), 5, "RESULTS.md has too few dated sections: is the pattern wrong?")
        for title, text in secs:
            with self.subTest(section=title):
                # The producer is named before the section's first table
                # or code block: at its head, where a reader looks.
                head = re.split(r"^\||^```", text, maxsplit=1, flags=re.M)[0]
                self.assertTrue(PRODUCER.search(head) or NO_PRODUCER.search(head),
                                "names no tracked command before its figures (nor says that none produced them)")

    def test_every_script_named_exists(self):
        with open(os.path.join(BENCH, "RESULTS.md"), encoding="utf-8") as f:
            text = f.read()
        files = tracked()
        named = sorted(set(re.findall(r"\bbench/[\w-]+\.(?:sh|py)\b", text)))
        self.assertTrue(named, "RESULTS.md names no bench/ script at all")
        for path in named:
            with self.subTest(script=path):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, path)), f"{path} does not exist")
                if files is not None:
                    self.assertIn(path, files, f"{path} is not tracked by git")


class TheoreticalPeak(unittest.TestCase):
    def test_uses_the_maximum_clock(self):
        # An H200 idling at 345 MHz: the peak is at its 1980 MHz maximum.
        line = baseline.fp32_peak(9, 0, 132, 345.0, 1980.0)
        self.assertAlmostEqual(line["gflops"], 2 * 132 * 128 * 1980e6 / 1e9)
        self.assertEqual(line["sm_clock_mhz"], 345.0)
        self.assertEqual(line["max_sm_clock_mhz"], 1980.0)
        self.assertIn("theoretical", line["source"])
        self.assertIn("maximum SM clock", line["source"])

    def test_lanes_by_compute_capability(self):
        # An A100 (8.0) has 64 FP32 lanes per SM, not 128.
        self.assertAlmostEqual(baseline.fp32_peak(8, 0, 108, 1410.0, 1410.0)["gflops"], 2 * 108 * 64 * 1410e6 / 1e9)

    def test_unknown_gpu_has_no_peak(self):
        self.assertIsNone(baseline.fp32_peak(12, 7, 100, 1000.0, 2000.0))


if __name__ == "__main__":
    unittest.main()


class RateUnits(unittest.TestCase):
    """The operation table once showed gemm-f16 and gemm-bf16 in GB/s."""

    def bench(self, dtype, flops, nbytes):
        return {"dtype": dtype, "flops_per_run": flops, "bytes_per_run": nbytes,
                "gflop_per_s": 2.0, "gb_per_s": 1.0}

    def test_every_gemm_in_flops(self):
        n = 4096
        for op, dtype in (("gemm", "f32"), ("gemm-f16", "f16"), ("gemm-bf16", "bf16")):
            b = self.bench(dtype, 2 * n**3, 3 * n * n * 2)
            self.assertEqual(table.rate_of(b, op), (2.0, "GFLOP/s", True), op)

    def test_integer_arithmetic_in_ops(self):
        b = self.bench("i32", 1e9, 1e6)
        self.assertEqual(table.rate_of(b, "peak-mad-i32")[1], "GOP/s")

    def test_streaming_in_bandwidth(self):
        b = self.bench("f32", 2 * 1024, 12 * 1024)  # triad: 2 per 12 bytes
        self.assertEqual(table.rate_of(b, "triad"), (1.0, "GB/s", False))


class SpreadTies(unittest.TestCase):
    """bench/spread.py counts two processes' different winners as a tie
    where each winner recorded one, whichever rule it was by."""

    def run_spread(self, runs):
        import contextlib
        import io
        import json
        import tempfile
        import warnings
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, benches in enumerate(runs):
                paths.append(os.path.join(d, "%d.json" % i))
                with open(paths[-1], "w") as f:
                    json.dump({"benchmarks": benches}, f)
            out = io.StringIO()
            argv = sys.argv
            sys.argv = ["spread.py"] + paths
            try:
                with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as said:
                    warnings.simplefilter("always")
                    spread.main()
            finally:
                sys.argv = argv
            # A file left open says so on stderr of every test run.
            self.assertEqual([str(w.message) for w in said], [])
        return out.getvalue()

    @staticmethod
    def bench(name, lo, med, hi, winner=False, tie=None):
        b = {"op": "gemm", "candidate": name, "outcome": "measured",
             "stats": {"median_s": med, "ci_lo_s": lo, "ci_hi_s": hi}}
        if winner:
            b["winner"] = True
        if tie:
            b["tie"] = tie
        return b

    def test_tie_by_target_half_width(self):
        # The intervals do not overlap: only the winners' word makes a tie.
        run = lambda first, tie: [self.bench(first, 1.000, 1.001, 1.002, True, tie),
                                  self.bench({"a": "b", "b": "a"}[first], 1.003, 1.004, 1.005)]
        said = "lowest median; the two fastest are within the target half-width of each other"
        self.assertIn("| tie (a = b) |", self.run_spread([run("a", said), run("b", said)]))
        self.assertIn("| no |", self.run_spread([run("a", None), run("b", None)]))
