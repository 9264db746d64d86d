#!/bin/sh
# Regenerate tests/data/kernels/nvidia/ from the sources in this folder with
# the CUDA toolkit (nvcc, ptxas).  CI has no CUDA toolkit: the results are
# committed, and the tests read them.  Made with CUDA 13.0 (V13.0.88).
#   tests/kernels/nvidia/build.sh [CUDA_HOME]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../../data/kernels/nvidia
cuda=${1:-${CUDA_HOME:-/usr/local/cuda}}
nvcc=$cuda/bin/nvcc
ptxas=$cuda/bin/ptxas
mkdir -p "$out"
cd "$out"
src=$here/kernels.cu
for a in 80 90; do
    # ptxas's own report (-v) is kept: the tests compare the readers with it
    # (for sm_80, which the lent H100 cannot load, it is the only reference).
    # (-v changes the notes inside the file, so it is a separate run.)
    "$nvcc" -cubin -arch=sm_$a -o kernels_sm$a.cubin "$src"
    "$nvcc" -cubin -arch=sm_$a -Xptxas -v -o "$out/.tmp.cubin" "$src" 2> ptxas-sm$a.log
    rm -f "$out/.tmp.cubin"
    "$nvcc" -ptx -arch=compute_$a -o kernels_compute$a.ptx "$src"
    "$ptxas" -arch=sm_$a -o directives_sm$a.cubin "$here/directives.ptx"
done
cp "$here/directives.ptx" directives.ptx
# For a target no built-in profile has (the command line refuses to guess a device).
"$ptxas" -arch=sm_87 -o directives_sm87.cubin "$here/directives.ptx"
# Compiled cluster dimensions (sm_90 and later only).
"$nvcc" -cubin -arch=sm_90 -o clusters_sm90.cubin "$here/clusters.cu"
# About 1 MB of cubin (450 kernels) for the reader's benchmark.
"$nvcc" -cubin -arch=sm_90 -o many_sm90.cubin "$here/many.cu"
both="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
# CUDA 13's default: SASS stored as is, PTX compressed (zstd).
"$nvcc" -fatbin $both -o kernels.fatbin "$src"
# Everything compressed.
"$nvcc" -fatbin $both -Xfatbin -compress-all -o kernels_compressed.fatbin "$src"
# Nothing compressed.
"$nvcc" -fatbin $both -Xfatbin -compress=false -o kernels_plain.fatbin "$src"
# Only PTX; only SASS for sm_80.
"$nvcc" -fatbin -gencode arch=compute_90,code=compute_90 -o kernels_ptxonly.fatbin "$src"
"$nvcc" -fatbin -gencode arch=compute_80,code=sm_80 -o kernels_sm80only.fatbin "$src"
# A host object with the fatbin in its .nv_fatbin section.
"$nvcc" -c $both -o kernels_host.o "$src"

# Small files to seed the fuzzers of the cubin and fatbin readers
# (tests/fuzz/corpus/{cubin,fatbin}/seed-*; docs/testing.md).
corpus=$here/../../fuzz/corpus
mkdir -p "$corpus/cubin" "$corpus/fatbin"
for s in a b c; do
    seed=$here/seeds/seed_$s.cu
    for a in 80 90; do
        "$nvcc" -cubin -arch=sm_$a -o "$corpus/cubin/seed-${s}-sm$a.cubin" "$seed"
    done
    "$nvcc" -fatbin $both -o "$corpus/fatbin/seed-$s.fatbin" "$seed"
    "$nvcc" -fatbin $both -Xfatbin -compress-all -o "$corpus/fatbin/seed-$s-compressed.fatbin" "$seed"
    "$nvcc" -fatbin -gencode arch=compute_90,code=compute_90 -o "$corpus/fatbin/seed-$s-ptx.fatbin" "$seed"
done
cp directives_sm80.cubin "$corpus/cubin/seed-directives-sm80.cubin"
cp directives_sm90.cubin "$corpus/cubin/seed-directives-sm90.cubin"
ls -l "$out" "$corpus/cubin" "$corpus/fatbin"
