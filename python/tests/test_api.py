"""The scalar API on hand-computed cases: the seed example of README.md
(Tiger Lake: 6 Xe-cores x 112 thread contexts, maximum work-group 512) and
CUDA's rule on H100 (64 warps and 65536 registers per SM)."""
import os
import pathlib

import pytest

import occ


@pytest.fixture(scope="module")
def tgl():
    return occ.device("tgl")


@pytest.fixture(scope="module")
def h100():
    return occ.device("h100-sxm")


def test_seed_example(tgl):
    r = tgl.residency(320, sg=8)
    # ceil(320 / 8) = 40 contexts per work-group; floor(112 / 40) = 2 work-groups.
    assert r.launchable and r.reason is None and r.reason_code == 0
    assert r.contexts_per_wg == 40 and r.contexts_per_core == 112
    assert r.resident_wgs == 2 and r.contexts_used == 80 and r.contexts_idle == 32
    assert r.occupancy == pytest.approx(80 / 112)
    assert r.limiter == "threads" and r.limited_by == ("threads",)
    assert r.limits == {"threads": 2, "slm": None, "registers": None, "work_group_slots": 112,
                        "barriers": None}
    assert r.wg == (320, 1, 1) and r.wg_size == 320 and r.sub_group == 8 and r.grf == 128
    steps = r.next_steps
    assert [s.text for s in steps[:2]] == [
        "reduce the work-group size to 296 work-items or less: 3 work-groups per Xe-core, 99.1 %",
        "use sub-group size 16: 5 work-groups per Xe-core, 89.3 %"]
    assert steps[0].input == "wg" and steps[0].value == 296 and steps[0].at_most
    assert steps[0].resident_wgs == 3 and steps[0].occupancy == pytest.approx(111 / 112)
    assert r.device is tgl


def test_seed_waves(tgl):
    w = tgl.residency(320, sg=8).gpu(8)
    # 8 work-groups x 40 contexts = 320 of 672 contexts, one wave.
    assert (w.work_groups, w.contexts_needed, w.contexts_total) == (8, 320, 672)
    assert w.waves == 1 and w.wave_capacity == 12
    assert w.waves_average_occupancy == pytest.approx(320 / 672)
    assert tgl.residency(320, sg=8).gpu(global_size=(2560,)).work_groups == 8
    with pytest.raises(occ.OccError, match="not a multiple of the work-group size"):
        tgl.residency(320, sg=8).gpu(global_size=(1000,))


def test_slm_and_barrier_limits(tgl):
    # 64 KB of SLM per Xe-core: 20 KB per work-group rounds up to the 32 KB step -> 2.
    r = tgl.residency(64, sg=16, slm=20 * 1024, barrier=True)
    assert r.slm_per_wg_alloc == 32 * 1024
    assert r.limits["slm"] == 2 and r.resident_wgs == 2 and r.limiter == "slm"
    assert r.limits["barriers"] == 64


def test_cannot_launch_is_a_result(tgl):
    r = tgl.residency(640, sg=8)
    assert not r.launchable and r.resident_wgs == 0
    assert "640" in r.reason and "512" in r.reason
    assert occ.REASONS[r.reason_code] == "work-group larger than the device maximum"
    assert r.next_steps and r.next_steps[0].input == "wg"
    assert "cannot launch" in repr(r)
    assert not tgl.residency(0).launchable
    assert not tgl.residency(64, sg=12).launchable


def test_h100_registers(h100):
    # 256 threads x 64 registers = 16384 per block; 65536 / 16384 = 4 blocks,
    # 4 x 8 warps = 32 of 64 warps.
    r = h100.residency((16, 16), regs=64)
    assert r.wg == (16, 16, 1) and r.sub_group == 32
    assert r.limits["registers"] == 4 and r.resident_wgs == 4
    assert r.occupancy == pytest.approx(0.5) and r.limiter == "registers"


def test_shapes_and_defaults(tgl):
    a = tgl.residency((8, 8, 4), sg=16)
    b = tgl.residency([256], sg=16)
    c = tgl.residency(256, sg=16, slm=None, barrier=None, grf=None, regs=None, carveout=None)
    assert a.resident_wgs == b.resident_wgs == c.resident_wgs
    assert tgl.residency(256).sub_group == 8  # smallest supported by default
    import numpy as np
    assert tgl.residency(np.int64(256), sg=np.uint8(16)).resident_wgs == c.resident_wgs


def test_devices_and_profiles(source_root):
    names = occ.builtin_devices()
    assert "tgl" in names and "h100-sxm" in names
    for name in names:
        d = occ.device(name)
        assert d.name == name and d.origin == f"<builtin:{name}>"
        assert d.info["vendor"] in ("intel", "nvidia", "amd")
    path = os.path.join(source_root, "devices", "tgl.yaml")
    for spec in (path, pathlib.Path(path)):
        d = occ.device(spec)
        assert d.origin == path and d.cores == 6 and d.sub_group_sizes == [8, 16, 32]
        assert d.residency(320, sg=8).resident_wgs == 2
    assert occ.device().name == "tgl"
    assert "name: tgl" in occ.builtin_yaml("tgl")
    assert occ.device("h100-sxm").vendor == "nvidia"


def test_slm_limit(tgl):
    # 4 work-groups of 64 on an Xe-core with 64 KB: 16 KB each.
    assert tgl.slm_limit(64, 4, sg=16) == 16 * 1024
    assert tgl.slm_limit(64, 1000, sg=16) is None


def test_help_reads_well():
    doc = occ.Device.residency.__doc__
    assert "wg: work-group size" in doc and "carveout" in doc
    assert "broadcast" in occ.Device.residency_batch.__doc__
    assert "OccError" in occ.__doc__
    text = []
    import pydoc
    text = pydoc.render_doc(occ.Device, renderer=pydoc.plaintext)
    for name in ("residency", "residency_batch", "phases", "advise", "bounds", "slm_limit"):
        assert name in text
    assert "next_steps" in pydoc.render_doc(occ.Residency, renderer=pydoc.plaintext)


def test_version():
    assert occ.__version__ == occ.library_version() and occ.__version__.count(".") == 2


def test_package_docstring_example():
    import doctest
    result = doctest.testmod(occ)
    assert result.failed == 0 and result.attempted >= 4


def test_copy_and_pickle(tgl, source_root):
    import copy
    import pickle
    assert copy.deepcopy(tgl) is tgl and copy.copy(tgl) is tgl
    again = pickle.loads(pickle.dumps(tgl))
    assert isinstance(again, occ.Device) and again.name == "tgl"
    path = os.path.join(source_root, "devices", "h100-sxm.yaml")
    d = pickle.loads(pickle.dumps(occ.device(path)))
    assert d.origin == path and d.residency(256, regs=64).resident_wgs == 4


def test_repr_counts_in_words(tgl):
    # one work-group, then two: the count and its noun agree
    assert repr(tgl.residency(512, sg=8)).startswith("<occ.Residency 1 work-group/core, ")
    assert repr(tgl.residency(320, sg=8)).startswith("<occ.Residency 2 work-groups/core, ")
