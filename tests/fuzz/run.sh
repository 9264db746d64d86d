#!/bin/sh
# Run one fuzz target for a while, then merge what it found into the committed
# corpus (tests/fuzz/corpus/TARGET) and list crashers.
#   tests/fuzz/run.sh TARGET [SECONDS] [BUILD_DIR]      TARGET: profile | cli | cubin | fatbin | kernels | amdgpu
# Work files: BUILD_DIR/fuzz-work/TARGET/{corpus,artifacts}, log in
# BUILD_DIR/fuzz-work/TARGET.log.  Crashers stay in artifacts/ until someone
# has looked at them: copy each into tests/fuzz/crashers/TARGET/ (it becomes a
# regression test) and fix the bug.
set -eu
target=$1
seconds=${2:-660}
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${3:-$src/build-fuzz}
fuzzer=$(find "$dir" -name "fuzz_$target" -type f -perm -u+x 2>/dev/null | head -n 1)
[ -n "$fuzzer" ] || { echo "run.sh: fuzz_$target not built in $dir (tests/fuzz/build.sh)" >&2; exit 2; }
work=$dir/fuzz-work/$target
mkdir -p "$work/corpus" "$work/artifacts"
seeds="$src/tests/fuzz/corpus/$target"
# Profiles: the shipped ones and the broken ones of the bad-input catalogue.
if [ "$target" = profile ]; then
    extra="$src/devices $src/tests/profiles/bad"
    fdmask=1
else
    extra=""
    fdmask=3
fi
# Kernel files are larger than profiles or command lines (the seeds reach 17 KB).
maxlen=4096
case $target in cubin|fatbin|amdgpu) maxlen=20000 ;; kernels) maxlen=16384 ;; esac
dirs=""
for d in $seeds $extra; do [ -d "$d" ] && dirs="$dirs $d"; done
log=$dir/fuzz-work/$target.log
echo "fuzzing $target for $seconds s; log $log"
# Fork mode with ignore_*: keep going after a crash so one run collects all.
# shellcheck disable=SC2086
"$fuzzer" "$work/corpus" $dirs \
    -dict="$src/tests/fuzz/$target.dict" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -max_len=$maxlen \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -close_fd_mask=$fdmask -artifact_prefix="$work/artifacts/" >"$log" 2>&1 || true
tail -n 5 "$log"
# Keep the committed corpus small: add only inputs that bring new coverage.
"$fuzzer" -merge=1 -close_fd_mask=$fdmask "$seeds" "$work/corpus" >>"$log" 2>&1
echo "corpus: $(ls "$seeds" | wc -l) files in $seeds"
n=$(ls "$work/artifacts" | wc -l)
echo "crashers/timeouts: $n in $work/artifacts"
