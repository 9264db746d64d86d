#!/bin/sh
# The verdict of every launch of the dispatch campaign, replayed without a GPU
# and predicted with the shipped h100-sxm profile (its dispatch timing):
#   sh tests/hw/dispatch_summary.sh BUILDDIR > tests/data/cuda/dispatch/summary.tsv
#   sh tests/hw/dispatch_summary.sh BUILDDIR tests/data/cuda/dispatch/2026-11-25/campaign-records.tar.xz \
#       > tests/data/cuda/dispatch/2026-11-25/summary.tsv
B=${1:-build}
R=${2:-tests/data/cuda/dispatch/campaign-records.tar.xz}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
tar -C "$T" -xJf "$R" || exit 1
printf 'name\tavg_pred\tavg_meas\tavg_diff_pp\tdistance_pp\tpeak\tresult\n'
for f in "$T"/records/*.rec; do
    "$B/cli/occcalc" validate --replay "$f" --device h100-sxm --json > "$T/out.json" 2>/dev/null
    python3 - "$f" "$T/out.json" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[2]))
c = j["comparison"]
name = os.path.basename(sys.argv[1])[:-4]
res = "pass" if j["pass"] else "FAIL: " + c["summary"]
print("%s\t%.2f\t%.2f\t%.2f\t%.2f\t%d/%d\t%s" % (name, 100 * c["predicted_average"], 100 * c["measured_average"],
      c["average_diff_pp"], c["distance_pp"], c["predicted_peak_per_core"], c["measured_peak_per_core"], res))
PY
done
