#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/device/README.md), from the
# repository root: the test binaries built into .devbin/ with the
# validation layer on, and the round-trip benchmark. Logs go under $OUT.
set -u
export VKBENCH_REQUIRE_VALIDATION=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
root=$(pwd)
# Each test binary runs in its package's folder, as go test runs it, so that
# its testdata/ is where it looks.
# vk's TestReopen alone opens the device 1,000 times (about 125 s on an
# H200), so each binary has 400 s.
for t in vk:vk faulty:hal/faulty kernels:kernels catalogue:catalogue autotune:autotune; do
	dir=${t#*:}
	t=${t%%:*}
	(cd "$dir" && timeout 400 "$root/.devbin/$t.test" -test.v -test.count=1 ${TEST_RUN:+-test.run "$TEST_RUN"}) >"$out/$t.txt" 2>&1
	rc=$?
	printf '%s.test: exit %d, %d passed, %d failed\n' "$t" "$rc" "$(grep -c -- '--- PASS' "$out/$t.txt")" "$(grep -c -- '--- FAIL' "$out/$t.txt")" | tee -a "$out/summary.txt"
	grep -E -- '--- FAIL|panic|validation' "$out/$t.txt" | head -10 | tee -a "$out/summary.txt"
done
(cd vk && timeout 120 ../.devbin/vk.test -test.run '^$' -test.bench RoundTrip -test.benchtime 2s -test.count 3) 2>&1 | grep -E 'Benchmark' | tee -a "$out/summary.txt"
echo "device-check: ${SECONDS} s in all" | tee -a "$out/summary.txt"
