#!/bin/sh
# Compiles every .comp here to the .spv next to it, as a project that
# brings its kernels would. Run by go generate in package manifest.
set -eu
cd "$(dirname "$0")"
for src in *.comp; do
	glslc -O --target-env=vulkan1.2 -fshader-stage=compute "$src" -o "${src%.comp}.spv"
done
