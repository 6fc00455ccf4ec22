#!/usr/bin/env bash
# The shared tune store's benchmark: a cold tune of every operation fills a
# store, then a second machine (an empty cache file) tunes every operation
# again, answered from the store (each answer's winner verified on the
# device before its first use there), then from its own file. Prints the
# wall time of each, and how many answers came from where.
#
# Here (lavapipe), from the repository root:
#   bash bench/fleet.sh [extra vkbench tune flags, e.g. --budget 2s]
# On the GPU machine, which has neither Go nor redis-server: first, here,
#   go build -o .devbin/vkbench ./cmd/vkbench && bash bench/fleet.sh --devbin
# (copies this machine's redis-server and the libraries it loads into
# .devbin/redis/), then there, with carry [".gl", ".devbin"]:
#   source .gl/enter.sh; bash bench/fleet.sh
# Writes its logs under $OUT (or /tmp/fleet).
set -euo pipefail
if [ "${1:-}" = --devbin ]; then
	mkdir -p .devbin/redis
	cp -L "$(command -v redis-server)" .devbin/redis/redis-server
	ldd "$(command -v redis-server)" | awk '/=> \// {print $3}' | grep -Ev '/(libc|libm|libpthread|libdl|ld-linux[^/]*)\.so' |
		xargs -I{} cp -L {} .devbin/redis/
	ls .devbin/redis
	exit 0
fi
out=${OUT:-/tmp/fleet}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
if [ ! -x "$bin" ]; then
	bin="$out/vkbench"
	go build -o "$bin" ./cmd/vkbench
fi
redis=$(command -v redis-server || true)
if [ -z "$redis" ]; then
	redis=.devbin/redis/redis-server
	export LD_LIBRARY_PATH="$PWD/.devbin/redis${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'port %s\nbind 127.0.0.1\nrequirepass fleet-bench\ndir %s\nsave ""\nappendonly no\nlogfile %s/redis.log\n' "$port" "$out" "$out" >"$out/redis.conf"
"$redis" "$out/redis.conf" &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || true' EXIT
sleep 0.5
export VKBENCH_STORE="redis://:fleet-bench@127.0.0.1:$port/0"
rm -f "$out"/cold.db "$out"/empty.db
ms() { echo $(( ($2 - $1) / 1000000 )); }
"$bin" devices >"$out/device.txt"
head -3 "$out/device.txt"
t0=$(date +%s%N)
"$bin" tune --cache "$out/cold.db" -q "$@" >"$out/cold.txt" 2>"$out/cold-stderr.txt"
t1=$(date +%s%N)
"$bin" tune --cache "$out/empty.db" -q "$@" >"$out/shared.txt" 2>"$out/shared-stderr.txt"
t2=$(date +%s%N)
"$bin" tune --cache "$out/empty.db" -q "$@" >"$out/local.txt" 2>"$out/local-stderr.txt"
t3=$(date +%s%N)
"$bin" cache ls --cache "$out/empty.db" >"$out/ls.txt" 2>&1
answered=$(grep -c 'answered from the shared store' "$out/shared-stderr.txt" || true)
measured=$(grep -c 'answered from the' "$out/cold-stderr.txt" || true)
warnings=$(cat "$out"/*-stderr.txt | grep -c 'warning' || true)
{
	echo "cold tune, empty store (fills it):        $(ms "$t0" "$t1") ms wall"
	echo "empty cache file, filled store:           $(ms "$t1" "$t2") ms wall ($answered answers from the store, each verified here)"
	echo "the same file again (local answers):      $(ms "$t2" "$t3") ms wall"
	echo "answers the cold tune found already there: $measured; warnings: $warnings"
} | tee "$out/fleet.txt"
