"""Thread-block clusters (docs/clusters.md): residency(cluster=...) and
residency_batch(cluster=...), hand-computed on the H200's GPCs
[18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2] and against the driver's
cuOccupancyMaxActiveClusters answers recorded on H200s."""
import csv
import gzip
import os

import numpy as np
import pytest

import occ

GPCS = [18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2]
RUN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "cuda", "occupancy",
                   "h200-2026-11-28")


@pytest.fixture(scope="module")
def h200():
    return occ.device("h200")


def test_hand_computed(h200):
    # 1024 threads, 64 registers: 1 block per SM; clusters of 2x2 = 4 on distinct SMs
    r = h200.residency(1024, regs=64, cluster=(2, 2))
    assert r.resident_wgs == 1
    assert r.max_active_clusters == sum(g // 4 for g in GPCS if g >= 4) == 30
    w = r.gpu(4000)
    assert w.wave_capacity == 30 * 4 and w.waves == -(-1000 // 30)
    # 32 fit an SM; a cluster launch holds 8; 16 only non-portable
    r = h200.residency(32, cluster=16, cluster_non_portable=True)
    assert r.resident_wgs == 32
    assert r.max_active_clusters == sum(g * 8 // 16 for g in GPCS if g >= 16) == 58
    assert h200.residency(32).max_active_clusters is None
    assert h200.residency(32, cluster=1).max_active_clusters == 132 * 8
    # one warp a block: 8 of 64 warps busy in clusters, 32 without; the step: 8-warp blocks
    assert r.occupancy == 32 / 64 and r.cluster_occupancy == 8 / 64
    assert h200.residency(32).cluster_occupancy is None
    step = r.next_steps[0]
    assert (step.input, step.value, step.at_most, step.occupancy) == ("wg", 256, False, 1.0)
    assert not h200.residency(32).next_steps or h200.residency(32).next_steps[0].at_most


def test_refusals(h200):
    with pytest.raises(occ.OccError, match="portable maximum of 8"):
        h200.residency(32, cluster=(3, 3))
    with pytest.raises(occ.OccError, match="gpc_sms"):
        occ.device("h100-sxm").residency(32, cluster=2)
    with pytest.raises(ValueError):
        h200.residency(32, cluster=(2, 0))
    with pytest.raises(TypeError):
        h200.residency(32, cluster="2")
    with pytest.raises(ValueError, match="outside 1..8"):
        h200.residency_batch([32, 64], cluster=9)
    with pytest.raises(occ.OccError, match="gpc_sms"):
        occ.device("h100-sxm").residency_batch([32, 64], cluster=2)


def test_batch_equals_one_by_one(h200):
    wg = np.arange(32, 1025, 32)[:, None]
    sizes = np.arange(1, 17)[None, :]
    b = h200.residency_batch(wg, regs=40, slm=8192, cluster=sizes, cluster_non_portable=True)
    assert b.max_active_clusters.shape == (32, 16) and b.max_active_clusters.dtype == np.uint64
    for i, w in enumerate(wg[:, 0]):
        for j, c in enumerate(sizes[0]):
            r = h200.residency(int(w), regs=40, slm=8192, cluster=int(c), cluster_non_portable=True)
            assert int(b.max_active_clusters[i, j]) == r.max_active_clusters
            assert b.cluster_occupancy[i, j] == r.cluster_occupancy
    assert (b.cluster_occupancy < b.occupancy).any()  # small blocks: the cap binds
    assert h200.residency_batch(wg, regs=40).max_active_clusters is None
    assert h200.residency_batch(wg, regs=40).cluster_occupancy is None


def rows(name):
    with gzip.open(os.path.join(RUN, name), "rt") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_recorded_driver_answers(h200):
    """Every answered cuOccupancyMaxActiveClusters of the H200 campaign, in
    one batch per kind of size."""
    with open(os.path.join(RUN, "kernels.csv")) as f:
        kernels = {k["kernel"]: k for k in csv.DictReader(line for line in f if not line.startswith("#"))}
    answered = [r for r in rows("clusters.csv.gz") if r["err"] == "0"]
    assert len(answered) == 60824
    # the campaign's answered queries allowed non-portable sizes (those without
    # were refused over 8 and not asked at 8 or less)
    for non_portable in (0, 1):
        part = [r for r in answered if int(r["nonportable"]) == non_portable]
        if not part:
            continue
        k = [kernels[r["kernel"]] for r in part]
        size = [int(x["required_cluster_width"]) * int(x["required_cluster_height"]) *
                int(x["required_cluster_depth"]) if x["cluster_size_must_be_set"] == "1"
                else int(r["cx"]) * int(r["cy"]) * int(r["cz"]) for r, x in zip(part, k)]
        b = h200.residency_batch(np.array([int(r["block"]) for r in part]),
                                 regs=np.array([int(x["num_regs"]) for x in k]),
                                 slm=np.array([int(x["shared_size_bytes"]) + int(r["dyn_smem"])
                                               for r, x in zip(part, k)]),
                                 barrier=np.array([x["kernel"] == "k_barrier" or
                                                   x["kernel"].startswith("k_static") for x in k]),
                                 cluster=np.array(size), cluster_non_portable=bool(non_portable))
        driver = np.array([int(r["max_clusters"]) for r in part])
        np.testing.assert_array_equal(b.max_active_clusters, driver)


def test_trace_of_cluster_launches():
    """The H200 trace of tests/trace/cuda_cluster_app.cu: occ equals the
    driver's answer on every configuration in clusters."""
    recs = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "trace",
                        "cuda-clusters-h200-2026-11-28", "records")
    t = occ.trace(recs)
    configs = [c for k in t for c in k.configurations if c.driver_max_active_clusters is not None]
    assert len(configs) >= 250
    assert all(c.max_active_clusters == c.driver_max_active_clusters for c in configs)


def test_phases_in_clusters(h200):
    # 1024 x 64 registers, clusters of 2x2: 30 at once, 4000 blocks = 1000 clusters in 34 waves
    t = h200.phases(1024, 4000, regs=64, cluster=(2, 2))
    phases = list(zip(t.start.tolist(), t.end.tolist(), t.work_groups_resident.tolist()))
    assert phases == [(0, 33, 120), (33, 34, 40)]
    with pytest.raises(occ.OccError):
        h200.phases(1024, 4001, regs=64, cluster=(2, 2))


def test_advise_in_clusters(h200):
    # 32 registers, at most 128 threads: 16 blocks of 128 fit an SM, a cluster launch holds 8
    a = h200.advise(regs=32, wg_max=128, work_groups=4000, cluster=2)
    best = a.best
    assert (best.wg_size, best.resident_wgs, best.occupancy, best.cluster_capped) == (128, 8, 0.5, True)
    assert best.limited_by == ()
    # waves of clusters: 528 clusters of 2 at once
    assert best.waves == -(-4000 // (528 * 2))
    plain = h200.advise(regs=32, wg_max=128, work_groups=4000)
    first = plain.best
    assert (first.occupancy, first.cluster_capped) == (1.0, False)
    with pytest.raises(occ.OccError, match="no GPC data"):
        occ.device("h100-sxm").advise(cluster=2)
    with pytest.raises(occ.OccError, match="portable maximum"):
        h200.advise(cluster=9)
