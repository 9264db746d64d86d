#!/bin/sh
# occcalc validate --cluster on the lent GPU, in one call of the device tool
# (docs/clusters.md, "validate --cluster"):
#   . tests/hw/gpu_build.sh build-gpu && sh tests/hw/validate_clusters_gpu.sh [PROFILE]
# Blocks of 32, 256 and 1024 threads, 0 or 100 KB of dynamic shared memory,
# clusters of 1, 2, 3, 4, 6, 8, 12, 16, 2x2, 2x2x2 and 4x2x2 blocks: a grid of
# twice the clusters PROFILE (default h200) says run at once, each block
# spinning 200 us.  Writes under $OUT: machine.txt, summary.txt (one line per
# launch: its name, exit code and result), reports.tar.xz (reports/NAME.txt)
# and records.tar.xz (records/NAME.rec, replayed by the test cuda-cluster-validate).
set -u
OUT=${OUT:-/tmp/validate-clusters-out}
P=${1:-h200}
OCC=build-gpu/cli/occcalc
mkdir -p "$OUT/records" "$OUT/reports"
{
    date -u '+date %Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_cap,uuid --format=csv,noheader
    nvcc --version | tail -2
} >"$OUT/machine.txt" 2>&1
: >"$OUT/summary.txt"
first=1
for b in 32 256 1024; do
    for dyn in 0 102400; do
        for c in 1 2 3 4 6 8 12 16 2,2 2,2,2 4,2,2; do
            size=$(($(echo "$c" | tr "," "*")))
            np=""
            [ "$size" -gt 8 ] && np=--cluster-non-portable
            active=$("$OCC" calc -d "$P" --wg "$b" --slm "$dyn" --cluster "$c" $np --json |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["clusters"]["max_active_clusters"])')
            [ "${active:-0}" -gt 0 ] || continue
            name=$(printf 'wg%s-slm%s-c%s' "$b" "$dyn" "$(echo "$c" | tr ',' 'x')")
            "$OCC" validate --backend cuda --wg "$b" --slm "$dyn" --cluster "$c" $np \
                --groups $((2 * active * size)) --duration-us 200 \
                --records "$OUT/records/$name.rec" >"$OUT/reports/$name.txt" 2>&1
            rc=$?
            echo "$name $rc $(grep '^Result' "$OUT/reports/$name.txt")" >>"$OUT/summary.txt"
            # a first launch that cannot run at all: stop, keep the device time
            if [ $first = 1 ] && [ $rc -ge 2 ]; then
                cat "$OUT/reports/$name.txt"
                exit 1
            fi
            first=0
        done
    done
done
tar -cJf "$OUT/records.tar.xz" -C "$OUT" records
tar -cJf "$OUT/reports.tar.xz" -C "$OUT" reports
rm -rf "$OUT/records" "$OUT/reports"
cat "$OUT/summary.txt"
echo "launches: $(wc -l <"$OUT/summary.txt"), pass: $(grep -c ' 0 Result   pass' "$OUT/summary.txt")"
