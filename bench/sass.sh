#!/usr/bin/env bash
# The machine code (SASS) the NVIDIA driver made of a candidate, on the GPU
# machine, and its instruction mix between barriers:
#
#   source .gl/enter.sh; bash bench/sass.sh OP SIZE REGEX
#   e.g. bash bench/sass.sh gemm-f16 4096x4096x4096 '^khr-128x256x32-w64x64-1buf$'
#
# vkbench runs the candidates REGEX selects (one at a time is clearest)
# with the driver's shader disk cache in a folder of its own; nvcachedec
# (github.com/therontarigo/nvcachetools, built beforehand: $NVCACHEDEC,
# default .devbin/nvcachedec) unpacks the cache's objects, and nvdisasm
# (CUDA's, or the one Triton carries: $NVDISASM) disassembles them. The
# cache's format is the driver's own and undocumented: this is a
# diagnostic, not a measurement. Everything lands under $OUT (default
# /tmp/sass); the mix is printed.
set -euo pipefail
op=$1 size=$2 regex=$3
out=${OUT:-/tmp/sass}
bin=${VKBENCH:-.devbin/vkbench}
dec=${NVCACHEDEC:-.devbin/nvcachedec}
nvd=${NVDISASM:-$(command -v nvdisasm || true)}
if [ -z "$nvd" ]; then
	nvd=$(python3 -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/nvdisasm"))' 2>/dev/null || echo "(no triton)")
fi
if [ ! -x "$dec" ]; then
	echo "bench/sass.sh: no nvcachedec at $dec: build it from github.com/therontarigo/nvcachetools and name it with NVCACHEDEC" >&2
	exit 2
fi
if [ ! -x "$nvd" ]; then
	echo "bench/sass.sh: no nvdisasm (not on PATH, nor Triton's at $nvd): name one with NVDISASM" >&2
	exit 2
fi
rm -rf "$out" && mkdir -p "$out/cache" "$out/objects"
__GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH="$out/cache" __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
	"$bin" run "$op" --size "$size" --candidates "$regex" --cache off --budget 1s -q -v >"$out/run.txt" 2>&1
find "$out/cache" -name '*.toc' | while read -r toc; do "$dec" "$toc" "$out/objects" >>"$out/decode.txt" 2>&1; done
for o in "$out"/objects/*.nvuc; do
	# The cache's format is undocumented: an object nvdisasm cannot read
	# (it refused the object of gemm_bf16_regblock's 8x8 tiles with
	# "Section 21 is an invalid NVuc section") is named, and the rest go on.
	if ! "$nvd" "$o" >"$o.sass" 2>"$o.err"; then
		echo "== $o: nvdisasm could not read it: $(head -c 300 "$o.err")"
		continue
	fi
	echo "== $o.sass"
	python3 - "$o.sass" <<'PY'
import re, sys, collections
ins = re.findall(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', open(sys.argv[1]).read())
print(next((l.strip() for l in open(sys.argv[1]) if 'Register count' in l), ''))
bars = [i for i, (_, t) in enumerate(ins) if t.split()[-2:-1] == ['BAR.SYNC'] or 'BAR.SYNC' in t.split()[:2]]
for a, b in zip([0] + bars, bars + [len(ins)]):
    mix = collections.Counter(re.sub(r'^@!?U?P\w+\s+', '', t).split()[0].split('.')[0] for _, t in ins[a:b])
    print(f"{ins[a][0]}..{ins[b - 1][0]}: {b - a} instructions,", ', '.join(f'{k} {n}' for k, n in mix.most_common(10)))
PY
done
