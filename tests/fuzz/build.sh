#!/bin/sh
# Build the libFuzzer targets (fuzz_profile, fuzz_cli, fuzz_cubin, fuzz_fatbin, fuzz_kernels, fuzz_trace, fuzz_amdgpu) with clang, AddressSanitizer
# and UBSan into a separate build directory (default build-fuzz).  The normal
# build does not need clang: it only builds the corpus replay drivers.
#   tests/fuzz/build.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$src/build-fuzz}
if [ ! -f "$dir/build.ninja" ]; then
    CC=${CC:-clang} meson setup "$dir" "$src" \
        -Dfuzzing=true -Dtests=disabled -Dman=disabled \
        -Db_sanitize=address,undefined -Db_lundef=false \
        "-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi
ninja -C "$dir" -j 2 tests/fuzz/fuzz_profile tests/fuzz/fuzz_cli tests/fuzz/fuzz_cubin tests/fuzz/fuzz_fatbin tests/fuzz/fuzz_kernels tests/fuzz/fuzz_trace tests/fuzz/fuzz_amdgpu
echo "built: $dir/tests/fuzz/fuzz_profile $dir/tests/fuzz/fuzz_cli $dir/tests/fuzz/fuzz_cubin $dir/tests/fuzz/fuzz_fatbin $dir/tests/fuzz/fuzz_kernels $dir/tests/fuzz/fuzz_trace $dir/tests/fuzz/fuzz_amdgpu"
