#!/usr/bin/env python3
"""Cluster probes against occ's prediction (docs/clusters.md, "Evidence").

    cluster_validate.py OCCCALC DEVICE PROBE.csv[.gz]

PROBE is what tests/hw/cluster_probe.cu wrote on the GPU: every block of
launches in clusters of 1..16 blocks, with its SM, cluster, rank and times.
From it alone:
  - the GPCs: SMs that ran blocks of one cluster together are one group, and
    the most blocks of a cluster launch on one SM at once: the profile lines
    core.gpc_sms and core.cluster_max_work_groups (printed, so a profile for
    a new chip is one probe away);
and, per launch, against `occcalc calc --cluster` on DEVICE with the probe's
block size, dynamic shared memory and registers:
  - the driver's cudaOccupancyMaxActiveClusters asked before the launch,
  - the most clusters running at once (a cluster runs from its first block's
    start to its last block's end),
  - the SMs that ran blocks, and the most blocks on one SM at once,
  - when: the clusters that started before the first cluster ended (the
    first wave; the grid is twice the active clusters, so the rest wait).
Verdict: PASS when every launch and the GPCs agree; exit 0 PASS, 1 FAIL.
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    head, rows = "", []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                head += line
            elif not line.startswith("launch,"):
                rows.append(line.rstrip("\n").split(","))
    return head, rows


def peak(intervals):
    """Most intervals open at once (an end before a start at the same time)."""
    ev = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    n = best = 0
    for _, d in ev:
        n += d
        best = max(best, n)
    return best


def groups_of(launches):
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for blocks in launches.values():
        first = {}
        for b in blocks:
            sm = b["smid"]
            find(sm)
            if b["clusterid"] in first:
                parent[find(sm)] = find(first[b["clusterid"]])
            else:
                first[b["clusterid"]] = sm
    sizes = collections.Counter(find(s) for s in parent)
    return sorted(sizes.values(), reverse=True)


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    occcalc, device, path = argv[1:]
    head, rows = read(path)
    regs = int(re.search(r"probe (\d+) registers", head).group(1))
    launches = collections.defaultdict(list)
    for r in rows:
        launch, c, block, dyn, drv, bid, sm, cid, rank, start, end = (int(x) for x in r)
        launches[launch].append(dict(cluster=c, block=block, dyn=dyn, driver=drv, smid=sm, clusterid=cid,
                                     start=start, end=end))
    print(head.strip())
    groups = groups_of(launches)
    most_per_sm = 0
    ok = True
    print("launch  cluster  block  dyn     driver  occ  at-once  SMs (occ)  per-SM (occ cap)  first wave  verdict")
    for launch, blocks in sorted(launches.items()):
        b0 = blocks[0]
        c, n = b0["cluster"], len(blocks)
        args = [occcalc, "-d", device, "--wg", str(b0["block"]), "--regs", str(regs), "--slm", str(b0["dyn"]),
                "--cluster", str(c), "--groups", str(n), "--json"]
        if c > 8:
            args.append("--cluster-non-portable")
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print("%6d  occcalc failed (%d): %s" % (launch, p.returncode, p.stderr.strip()))
            ok = False
            continue
        cl = json.loads(p.stdout)["clusters"]
        spans = collections.defaultdict(lambda: [None, None])
        for b in blocks:
            s = spans[b["clusterid"]]
            s[0] = b["start"] if s[0] is None else min(s[0], b["start"])
            s[1] = b["end"] if s[1] is None else max(s[1], b["end"])
        at_once = peak(list(spans.values()))
        first_end = min(e for _, e in spans.values())
        first_wave = sum(1 for s, _ in spans.values() if s < first_end)
        sms = {b["smid"] for b in blocks}
        per_sm = max(peak([(b["start"], b["end"]) for b in blocks if b["smid"] == sm]) for sm in sms)
        most_per_sm = max(most_per_sm, per_sm)
        want = cl["max_active_clusters"]
        good = (b0["driver"] == want and at_once == want and len(sms) == cl["cores_used"]
                and per_sm <= cl["work_groups_per_core"] and first_wave == want)
        ok &= good
        print("%6d  %7d  %5d  %6d  %6d  %3d  %7d  %3d (%3d)  %6d (%3d)        %10d  %s"
              % (launch, c, b0["block"], b0["dyn"], b0["driver"], want, at_once, len(sms), cl["cores_used"], per_sm,
                 cl["work_groups_per_core"], first_wave, "equal" if good else "DIFFERS"))
    dev = json.loads(subprocess.run([occcalc, "-d", device, "--wg", "32", "--json"], stdout=subprocess.PIPE,
                                    text=True).stdout)["device"]["name"]
    print("measured: gpc_sms: [%s]" % ", ".join(map(str, groups)))
    print("measured: cluster_max_work_groups: %d" % most_per_sm)
    profile = None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for line in open(os.path.join(root, "devices", "%s.yaml" % dev)):
        m = re.match(r"\s*gpc_sms:\s*\[(.*)\]", line)
        if m:
            profile = [int(x) for x in m.group(1).split(",")]
    same = profile == groups
    ok &= same
    print("profile %s: gpc_sms %s: %s" % (dev, profile, "equal" if same else "DIFFERS"))
    print("verdict: %s (%d launches)" % ("PASS" if ok else "FAIL", len(launches)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
