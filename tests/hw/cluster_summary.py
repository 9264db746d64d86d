#!/usr/bin/env python3
"""What the H200 occupancy campaign says about thread-block clusters
(docs/validation/cuda-h200-2026-11-28.md), from its recorded files alone:

1. the groups of SMs that clusters share (placement.csv.gz: SMs that ever ran
   blocks of one cluster together are joined);
2. whether cuOccupancyMaxActiveClusters (clusters.csv.gz) equals
       sum over groups of size G >= cluster size C: floor(G * min(b, 8) / C)
   with b the blocks per SM of CUDA's occupancy rule, and whether
   cuOccupancyMaxPotentialClusterSize (cluster_size.csv.gz) is the largest C
   (up to 8, 16 non-portable) with at least one active cluster.
It is an analysis for the record, not a test: the model of clusters belongs to
libocc, and its tests replay the same files.

Usage: cluster_summary.py RUN_DIR [PLACEMENT.csv.gz ...]
"""
import csv
import gzip
import math
import sys


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def sm_groups(placement):
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    clusters = {}
    for r in placement:
        find(int(r["smid"]))
        clusters.setdefault((r["launch"], r["clusterid"]), []).append(int(r["smid"]))
    for sms in clusters.values():
        for s in sms[1:]:
            a, b = find(sms[0]), find(s)
            if a != b:
                parent[a] = b
    groups = {}
    for s in list(parent):
        groups.setdefault(find(s), []).append(s)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


def blocks_per_sm(block, regs, static, dyn):
    """CUDA's occupancy rule on compute capability 9.0 (docs/model.md)."""
    warps = math.ceil(block / 32)
    per_warp = math.ceil(regs * 32 / 256) * 256
    if per_warp * math.ceil(warps / 4) * 4 > 65536 or static + dyn > 232448:
        return 0
    by_regs = 4 * (16384 // per_warp) // warps
    per_block = math.ceil((static + dyn + 1024) / 128) * 128
    return min(64 // warps, by_regs, 233472 // per_block, 32)


def active_clusters(sizes, b, c):
    return sum(g * min(b, 8) // c for g in sizes if c <= g)


def main():
    run = sys.argv[1]
    placements = sys.argv[2:] or [run + "/placement.csv.gz"]
    sizes = None
    for p in placements:
        groups = sm_groups(rows(p))
        s = [len(g) for g in groups]
        print(f"{p}: {sum(s)} SMs in groups of {s}")
        for g in groups:
            print(f"  {len(g):2}: {g}")
        if sizes is not None and s != sizes:
            print("  (differs from the first)")
        sizes = sizes or s
    kernels = {k["kernel"]: k for k in rows(run + "/kernels.csv")}

    def b_of(r):
        k = kernels[r["kernel"]]
        return blocks_per_sm(int(r["block"]), int(k["num_regs"]), int(k["shared_size_bytes"]),
                             int(r["dyn_smem"]))

    def size_of(r):
        k = kernels[r["kernel"]]
        if int(k["cluster_size_must_be_set"]):  # compiled dimensions
            return int(k["required_cluster_width"]) * int(k["required_cluster_height"]) * \
                int(k["required_cluster_depth"])
        return int(r["cx"]) * int(r["cy"]) * int(r["cz"])

    equal = total = refused = 0
    for r in rows(run + "/clusters.csv.gz"):
        if int(r["err"]):
            refused += 1  # 912: more than 8 without the non-portable attribute
            continue
        total += 1
        equal += active_clusters(sizes, b_of(r), size_of(r)) == int(r["max_clusters"])
    print(f"cuOccupancyMaxActiveClusters: {equal} of {total} answers equal the rule; "
          f"{refused} refused")
    equal = total = 0
    for r in rows(run + "/cluster_size.csv.gz"):
        if kernels[r["kernel"]]["cluster_size_must_be_set"] != "0":
            continue
        top = 16 if int(r["nonportable"]) else 8
        b = b_of(r)
        best = max([c for c in range(1, top + 1) if active_clusters(sizes, b, c) > 0], default=0)
        total += 1
        equal += best == int(r["cluster_size"])
    print(f"cuOccupancyMaxPotentialClusterSize: {equal} of {total} answers equal the rule")


if __name__ == "__main__":
    main()
