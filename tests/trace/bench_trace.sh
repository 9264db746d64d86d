#!/bin/sh
# Tracing overhead per launch with Level Zero (Intel driver, hardware-less
# mode) and the speed of the report: docs/performance.md.
#   sh tests/trace/bench_trace.sh [BUILDDIR]
# Runs tests/trace/ze_launch_loop (51200 appends) alone and under
# `occcalc trace`, alternately, 5 times each; then times the replay of the
# traced run's records.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
loop=$B/tests/trace/ze_launch_loop
spv=$B/tests/trace/trace_kernels.spv
[ -x "$loop" ] || { echo "no $loop (Level Zero, clang and llvm-spirv-14 needed)"; exit 77; }
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=tgllp
tmp=$(mktemp -d /tmp/occ-trace-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo "machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
for i in 1 2 3 4 5; do
    printf 'plain   '; "$loop" "$spv" 200
    printf 'traced  '; "$B/cli/occcalc" trace -o report.txt -- "$loop" "$spv" 200
done
"$B/cli/occcalc" trace --records recs -o "$tmp/null.txt" -- "$loop" "$spv" 200 >/dev/null
python3 - "$B/cli/occcalc" recs <<'PY'
import subprocess, sys, time
best = min(
    (lambda t0: (subprocess.run([sys.argv[1], "trace", "--replay", sys.argv[2], "-o", "null.txt"], check=True),
                 time.perf_counter() - t0)[1])(time.perf_counter())
    for _ in range(3))
print("report of 51200 launches (replay, best of 3): %.3f s, %.2f us per launch" % (best, best / 51200 * 1e6))
PY
