"""occ.kernel_tuner with Kernel Tuner's own search-space construction
(kernel_tuner.searchspace.Searchspace, no GPU): a tiled matrix multiply's
parameters, pruned by occ, against occ's own answers.

Kernel Tuner is a pip package (PyPI: kernel_tuner).  Where it is not
installed the Kernel Tuner tests are skipped, saying so; with
OCC_TEST_REQUIRE_KERNEL_TUNER=1 (CI's virtual environment) they fail."""
import itertools
import os

import numpy as np
import pytest

import occ
from occ.kernel_tuner import metrics, objective, restriction

# A tiled matrix multiply (Kernel Tuner's matmul example): each thread block
# computes (block_size_x * tile_size_x) x (block_size_y * tile_size_y) of C and
# stages A and B tiles of floats in shared memory, with a barrier.
TUNE_PARAMS = {
    "block_size_x": [16, 32, 64, 128],
    "block_size_y": [1, 2, 4, 8, 16, 32],
    "tile_size_x": [1, 2, 4, 8],
    "tile_size_y": [1, 2, 4, 8],
}
SLM = "4 * block_size_y * tile_size_y * block_size_x * (1 + tile_size_x)"


def smem(p):
    return 4 * p["block_size_y"] * p["tile_size_y"] * p["block_size_x"] * (1 + p["tile_size_x"])


def kernel_tuner_searchspace():
    try:
        from kernel_tuner.searchspace import Searchspace
    except ImportError as e:
        if os.environ.get("OCC_TEST_REQUIRE_KERNEL_TUNER") == "1":
            pytest.fail(f"kernel_tuner is required here but cannot be imported: {e}")
        pytest.skip(f"kernel_tuner is not installed ({e}); pip install kernel_tuner")
    return Searchspace


def all_configs():
    names = list(TUNE_PARAMS)
    return [dict(zip(names, v)) for v in itertools.product(*TUNE_PARAMS.values())]


@pytest.mark.parametrize("device,min_occ", [("h100-sxm", 0.5), ("a100", 0.25), ("h100-sxm", 1.0)])
def test_searchspace_with_restriction(device, min_occ):
    Searchspace = kernel_tuner_searchspace()
    dev = occ.device(device)
    keep = restriction(dev, min_occupancy=min_occ, barrier=True, slm=SLM, regs=32)
    ss = Searchspace(TUNE_PARAMS, keep, 1024)
    kept = {tuple(c) for c in ss.list}
    # occ's own answers, with Kernel Tuner's implicit rule (threads <= 1024).
    want = set()
    for p in all_configs():
        if p["block_size_x"] * p["block_size_y"] > 1024:
            continue
        r = dev.residency((p["block_size_x"], p["block_size_y"]), slm=smem(p), barrier=True,
                          regs=32)
        if r.launchable and r.occupancy >= min_occ:
            want.add(tuple(p.values()))
    assert kept == want
    assert 0 < len(kept) < len(all_configs())  # it prunes, and keeps something


def test_restriction_in_a_list_with_others():
    Searchspace = kernel_tuner_searchspace()
    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=0.5, barrier=True, slm=smem)
    ss = Searchspace(TUNE_PARAMS, ["tile_size_x == tile_size_y",
                                   keep.as_constraint(TUNE_PARAMS)], 1024)
    for values in ss.list:
        p = dict(zip(TUNE_PARAMS, values))
        assert p["tile_size_x"] == p["tile_size_y"] and keep(p)
    assert len(ss.list) == sum(1 for p in all_configs() if p["tile_size_x"] == p["tile_size_y"]
                               and p["block_size_x"] * p["block_size_y"] <= 1024 and keep(p))


def test_restriction_mapping_and_batch():
    # Without Kernel Tuner: the mapping itself and the batch form.
    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=0.5, barrier=True, slm=SLM)
    configs = all_configs()
    one_by_one = np.array([keep(p) for p in configs])
    np.testing.assert_array_equal(keep.keep(configs), one_by_one)
    p = {"block_size_x": 32, "block_size_y": 8, "tile_size_x": 4, "tile_size_y": 4}
    r = dev.residency((32, 8), slm=smem(p), barrier=True)
    assert keep(p) == (r.occupancy >= 0.5)
    m = metrics(dev, slm=SLM, barrier=True)
    assert m["occ_occupancy"](p) == pytest.approx(100 * r.occupancy)
    assert m["occ_resident_wgs"](p) == r.resident_wgs
    assert m["occ_limiter"](p) == r.limiter
    assert objective(dev, slm=SLM, barrier=True)(p) == r.occupancy
    # Intel: a sub-group size tune parameter by name.
    tgl = occ.device("tgl")
    k2 = restriction(tgl, min_occupancy=0.9, sg="sg", slm="64 * block_size_x")
    q = {"block_size_x": 64, "block_size_y": 2, "sg": 16}
    assert k2(q) == (tgl.residency((64, 2), sg=16, slm=64 * 64).occupancy >= 0.9)
    with pytest.raises(ValueError):
        restriction(dev, min_occupancy=1.5)
    with pytest.raises(TypeError):
        restriction("h100-sxm")


def test_unknown_registers_never_prune_what_some_count_keeps():
    dev = occ.device("a100")
    unknown = restriction(dev, min_occupancy=0.5, barrier=True, slm=SLM)
    kept_unknown = unknown.keep(all_configs())
    for regs in (16, 32, 40, 64, 128, 255):
        kept = restriction(dev, min_occupancy=0.5, barrier=True, slm=SLM, regs=regs).keep(all_configs())
        assert not (kept & ~kept_unknown).any(), regs
    assert kept_unknown.sum() > kept.sum()  # and 255 registers do prune more


def test_restriction_drops_what_the_kernel_refuses():
    # A kernel built with __launch_bounds__(256): no block over 256 threads is kept,
    # whatever its occupancy; within the bound the answer is the plain one.
    dev = occ.device("h100-sxm")
    bounded = restriction(dev, barrier=True, slm=SLM, max_wg=256)
    plain = restriction(dev, barrier=True, slm=SLM)
    configs = all_configs()
    kept = bounded.keep(configs)
    for p, k in zip(configs, kept):
        threads = p["block_size_x"] * p["block_size_y"]
        assert k == (threads <= 256 and plain(p))
    assert kept.any() and not kept.all()
    # a required block shape keeps that shape only
    shape = restriction(dev, reqd_wg=(32, 8))
    assert [p for p in configs if shape(p)] == [p for p in configs
                                                 if (p["block_size_x"], p["block_size_y"]) == (32, 8)]
    with pytest.raises(TypeError):
        occ.kernel_tuner._Mapping(dev, ("block_size_x",), None, 0, False, None, None, None, {"max": 1})
