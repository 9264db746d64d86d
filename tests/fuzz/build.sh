#!/bin/sh
# Build the libFuzzer targets (every executable named fuzz_* other than the
# replay drivers: tests/meson.build's fuzz_targets) with clang,
# AddressSanitizer and UBSan into a separate build directory (default
# build-fuzz).  The normal build does not need clang: it only builds the
# corpus replay drivers.
#   tests/fuzz/build.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$src/build-fuzz}
if [ ! -f "$dir/build.ninja" ]; then
    CC=${CC:-clang} meson setup "$dir" "$src" \
        -Dfuzzing=true -Dman=disabled -Dpython=disabled \
        -Db_sanitize=address,undefined -Db_lundef=false \
        "-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi
# The targets by name, wherever the test layout puts them.
targets=$(meson introspect --targets "$dir" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    n = t["name"]
    if t["type"] == "executable" and n.startswith("fuzz_") and not n.startswith("fuzz_replay_"):
        print(n)')
[ -n "$targets" ] || { echo "build.sh: no fuzz targets in $dir" >&2; exit 1; }
# shellcheck disable=SC2086
meson compile -C "$dir" -j 2 $targets
for t in $targets; do
    echo "built: $(find "$dir" -name "$t" -type f -perm -u+x | head -n 1)"
done
