#!/usr/bin/env bash
# The main job: set up, build vkbench, and show what the default Vulkan
# device does. Extra arguments go to vkbench.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
vkbench_setup
mkdir -p bin
go build -o bin/vkbench ./cmd/vkbench
echo "built bin/vkbench" >&2
if (($#)); then
	exec bin/vkbench "$@"
fi
exec bin/vkbench devices
