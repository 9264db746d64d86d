"""phases, advise and bounds against the README's seed output and against
brute force over the scalar call."""
import itertools

import numpy as np
import pytest

import occ


@pytest.fixture(scope="module")
def tgl():
    return occ.device("tgl")


def test_seed_phases(tgl):
    # README: phase 1 [0, 1) 8 work-groups, 304 contexts, 45.2 %; phase 2
    # [1, 2) 2 work-groups, 16 contexts, 2.4 %; average 23.8 %, peak 304.
    t = tgl.phases(320, 8, sg=8)
    assert len(t) == t.n_phases == 2
    np.testing.assert_array_equal(t.start, [0, 1])
    np.testing.assert_array_equal(t.end, [1, 2])
    np.testing.assert_array_equal(t.work_groups_resident, [8, 2])
    np.testing.assert_array_equal(t.thread_contexts, [304, 16])
    np.testing.assert_allclose(t.occupancy, [304 / 672, 16 / 672])
    assert t.phases_average_occupancy == pytest.approx(320 / 672 / 2)
    assert t.peak_thread_contexts == 304 and t.order == "pack" and t.partial == "launch"
    assert t.core_contexts is None


def test_phases_lanes_and_policies(tgl):
    t = tgl.phases(320, 100, sg=8, lanes=True, order="spread", partial="no")
    assert t.core_contexts.shape == (t.n_phases, 6) == t.core_work_groups.shape
    np.testing.assert_array_equal(t.core_contexts.sum(axis=1), t.thread_contexts)
    # Whole work-groups only: never more than the residency on a core.
    assert t.core_work_groups.max() <= tgl.residency(320, sg=8).resident_wgs
    assert t.order == "spread" and t.partial == "no"
    # Durations: a list (cycled), seeded random draws repeat.
    a = tgl.phases(64, 500, sg=16, durations=("uniform", 0.5, 1.5, 9))
    b = tgl.phases(64, 500, sg=16, durations=("uniform", 0.5, 1.5, 9))
    np.testing.assert_array_equal(a.end, b.end)
    c = tgl.phases(64, 500, sg=16, durations=[1.0, 2.0])
    assert c.run_end > tgl.phases(64, 500, sg=16).run_end
    # Busy context-time is work-groups x contexts x duration: 500 x 4 x 1.
    assert tgl.phases(64, 500, sg=16).busy_context_time == pytest.approx(2000)


def test_advise_best_is_the_brute_force_best(tgl):
    a = tgl.advise(global_size=(1 << 20,), limit=200)
    assert a.summary.failed == "ok" and a.best is a.configs[0]
    # Brute force: every power-of-two size up to 512 (they divide 2^20) x sub-group.
    best = max(tgl.residency(w, sg=s).occupancy
               for w, s in itertools.product([1 << i for i in range(10)], [8, 16, 32]))
    assert a.best.occupancy == pytest.approx(best) == 1.0
    assert len(a) == a.summary.configurations == 30
    for c in a:
        r = tgl.residency(c.wg, sg=c.sg)
        assert (c.resident_wgs, c.occupancy) == (r.resident_wgs, r.occupancy)
        assert c.explanation
    assert a.best.explanation.startswith("best:")


def test_advise_threshold(tgl):
    a = tgl.advise(work_groups=10_000, threshold=0.9, sub_groups=[16], limit=10_000)
    assert len(a) == a.summary.matching > 0
    assert all(c.occupancy >= 0.9 for c in a)
    # Every size 1..512 with sub-group 16 that reaches 90 % per core is listed.
    want = {w for w in range(1, 513) if tgl.residency(w, sg=16).occupancy >= 0.9}
    assert {c.wg_size for c in a} == want


def test_bounds_brute_force():
    h = occ.device("h100-sxm")
    b = h.bounds(256, unknown=["regs"], slm=16 * 1024)
    occs = [h.residency(256, slm=16 * 1024, regs=r) for r in range(1, 256)]
    assert b.occupancy_max == pytest.approx(max(r.occupancy for r in occs if r.launchable))
    assert b.occupancy_min == pytest.approx(min(r.occupancy if r.launchable else 0 for r in occs))
    t = occ.device("tgl")
    b = t.bounds(320, unknown="sg")
    assert b.occupancy_max == pytest.approx(max(t.residency(320, sg=s).occupancy
                                                for s in (8, 16, 32)))


def test_sweep_points_are_the_scalar_answers(tgl):
    s = tgl.sweep("wg", sg=16, slm_per_item=64, work_groups=100)
    assert len(s) == 32 and list(s.x[:3]) == [16, 32, 48]  # natural step: the sub-group size
    for i, w in enumerate(s.x):
        r = tgl.residency(int(w), sg=16, slm=64 * int(w))
        assert (s.launchable[i], s.reason[i]) == (r.launchable, r.reason_code)
        assert s.resident_wgs[i] == r.resident_wgs and s.occupancy[i] == r.occupancy
        if r.launchable:
            g = r.gpu(100)
            assert s.has_gpu[i] and s.waves[i] == g.waves
            assert s.waves_average_occupancy[i] == pytest.approx(g.waves_average_occupancy)
    p = tgl.sweep("slm", 64, sg=16, start=1000, stop=9000, step=1000)
    assert list(p.x) == list(range(1000, 9001, 1000))


def test_limits_runs_are_exact():
    for name, axis, kw in (("tgl", "slm", {"sg": 16}), ("h100-sxm", "regs", {}),
                           ("h100-sxm", "slm", {"regs": 32}), ("max-1550", "grf", {"sg": 16}),
                           ("ptl", "sg", {})):
        dev = occ.device(name)
        lim = dev.limits(axis, 256, **kw)
        assert len(lim) > 1
        for i in range(len(lim)):
            for x in {int(lim.lo[i]), int(lim.hi[i]), (int(lim.lo[i]) + int(lim.hi[i])) // 2}:
                r = dev.residency(256, **{**kw, axis: x})
                if axis in ("grf", "sg") and x not in (int(lim.lo[i]), int(lim.hi[i])):
                    continue  # only the modes / sizes themselves exist
                assert (r.resident_wgs if r.launchable else 0) == lim.resident_wgs[i], (name, axis, x)
            if i + 1 < len(lim) and axis in ("slm", "regs"):
                assert lim.lo[i + 1] == lim.hi[i] + 1  # runs cover the range without gaps


def test_sweep_errors(tgl):
    with pytest.raises(ValueError, match="no register-file limit"):
        tgl.sweep("regs")
    with pytest.raises(ValueError, match="no GRF modes"):
        occ.device("a100").limits("grf")
    with pytest.raises(ValueError, match="above stop"):
        tgl.sweep("wg", start=100, stop=10)
    with pytest.raises(ValueError, match="not both"):
        tgl.sweep("wg", work_items=1024, work_groups=4)
    with pytest.raises(ValueError, match="axis must be one of"):
        tgl.sweep("colour")
    with pytest.raises(occ.OccError, match="more than"):
        tgl.sweep("slm", 64, stop=2**40, step=1)
