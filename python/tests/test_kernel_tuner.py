"""occ.kernel_tuner with Kernel Tuner's own search-space construction
(kernel_tuner.searchspace.Searchspace, no GPU): a tiled matrix multiply's
parameters, pruned by occ, against occ's own answers.

Kernel Tuner is a pip package (PyPI: kernel_tuner).  Where it is not
installed the Kernel Tuner tests are skipped, saying so; with
OCC_TEST_REQUIRE_KERNEL_TUNER=1 (CI's virtual environment) they fail."""
import itertools
import json
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


# ---- Kernel Tuner's own examples, every form of restriction, its simulation mode ----------------------
#
# The search spaces of three of Kernel Tuner's examples (examples/cuda/vector_add.py, matmul.py,
# convolution.py), written here in our words: their tune parameters, their own restrictions, the
# shared memory their kernels declare.  The point is the search space the occ restriction leaves, in
# every form Kernel Tuner takes one, against occ's own answer configuration by configuration.

VECTOR_ADD = {"block_size_x": [128 + 64 * i for i in range(15)]}

MATMUL = {"block_size_x": [16 * 2 ** i for i in range(3)], "block_size_y": [2 ** i for i in range(6)],
          "tile_size_x": [2 ** i for i in range(4)], "tile_size_y": [2 ** i for i in range(4)]}
MATMUL_OWN = ["block_size_x == block_size_y * tile_size_y"]
# tiles of A (block_size_y * tile_size_y x block_size_x) and B (... x block_size_x * tile_size_x), floats
MATMUL_SLM = SLM

CONVOLUTION = {"block_size_x": [16 * i for i in range(1, 9)], "block_size_y": [2 ** i for i in range(6)],
               "tile_size_x": list(range(1, 9)), "tile_size_y": list(range(1, 9)),
               "use_padding": [0, 1], "read_only": [0, 1]}
CONVOLUTION_OWN = ["block_size_x * block_size_y >= 64", "tile_size_x * tile_size_y < 32"]
# the input tile a block stages, with the border of a 17 x 17 filter and an optional padding column
CONVOLUTION_SLM = ("4 * (block_size_y * tile_size_y + 16)"
                   " * (block_size_x * tile_size_x + 16 + (1 if use_padding else 0))")

# (tune parameters, the example's own restrictions, shared memory, the occupancy occ asks for: at 32
# registers a thread every vector_add block reaches 50 %, so it asks for 75 %)
EXAMPLES = {
    "vector_add": (VECTOR_ADD, [], 0, 0.75),
    "matmul": (MATMUL, MATMUL_OWN, MATMUL_SLM, 0.5),
    "convolution": (CONVOLUTION, CONVOLUTION_OWN, CONVOLUTION_SLM, 0.5),
}


def configs_of(tune_params):
    names = list(tune_params)
    return [dict(zip(names, v)) for v in itertools.product(*tune_params.values())]


def own_rules(rules, p):
    """The example's own restrictions, evaluated here (they are Python expressions)."""
    return all(eval(r, {}, dict(p)) for r in rules)


def occ_answer(dev, p, slm, min_occ):
    """occ's own answer for one configuration, without Kernel Tuner."""
    wg = (p["block_size_x"], p.get("block_size_y", 1))
    s = eval(slm, {}, dict(p)) if isinstance(slm, str) else slm
    r = dev.residency(wg, slm=s, barrier=True, regs=32)
    return r.launchable and r.occupancy >= min_occ


def expected_space(dev, tune_params, rules, slm, min_occ):
    return {tuple(p.values()) for p in configs_of(tune_params)
            if p["block_size_x"] * p.get("block_size_y", 1) <= 1024 and own_rules(rules, p)
            and occ_answer(dev, p, slm, min_occ)}


def takes_tuples():
    """Whether this Kernel Tuner builds a search space from a (function, names) restriction."""
    Searchspace = kernel_tuner_searchspace()

    def everything(*values, **by_name):
        return True

    try:
        return len(Searchspace({"a": [1, 2]}, [(everything, ["a"])], 1024).list) == 2
    except (ValueError, TypeError):
        return False


def forms(keep, tune_params, rules):
    """Every way Kernel Tuner takes the occ restriction, with the example's own restrictions."""
    yield "alone", keep if not rules else None
    yield "as_constraint alone", keep.as_constraint(tune_params) if not rules else None
    yield "in a list", rules + [keep]
    yield "as_constraint in a list", rules + [keep.as_constraint(tune_params)]
    # Kernel Tuner takes a (function, names) tuple only in a list without strings, and only before
    # 1.1 (with strings it pairs every other entry with names of its own; 1.1 drops tuples when it
    # parses the list): where it takes one, occ's does the same
    yield "as a (function, names) tuple", [keep.as_tuple(tune_params)] if not rules and takes_tuples() else None
    # the example's own restrictions as a function instead of strings, beside it (Kernel Tuner
    # passes a function in a list every value by position, or by keyword)
    names = list(tune_params)

    def own(*values, **by_name):
        return own_rules(rules, by_name or dict(zip(names, values)))

    yield "beside a function", [own, keep]


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_kernel_tuner_examples_every_form(example):
    Searchspace = kernel_tuner_searchspace()
    tune_params, rules, slm, min_occ = EXAMPLES[example]
    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=min_occ, barrier=True, slm=slm, regs=32, tune_params=tune_params)
    want = expected_space(dev, tune_params, rules, slm, min_occ)
    assert 0 < len(want) < len(configs_of(tune_params))  # the restriction prunes, and keeps something
    for form, restrictions in forms(keep, tune_params, rules):
        if restrictions is None:
            continue
        got = {tuple(c) for c in Searchspace(tune_params, restrictions, 1024).list}
        assert got == want, f"{example}, {form}: {len(got)} configurations, occ's answer {len(want)}"
    # the occ restriction alone, with the example's rules as the other entries: the monolithic form
    # sees a dict, the list forms values by position or by keyword; all the same answer
    p = configs_of(tune_params)[0]
    assert keep(p) == keep(**p) == keep(*p.values()) == keep.as_constraint(tune_params)(*p.values())


def test_restriction_by_position_needs_the_names():
    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=0.75, regs=32)
    assert keep({"block_size_x": 256}) and keep(block_size_x=256)
    # one value alone: a search space of one parameter, the block size (704 threads at 32
    # registers: 2 blocks of 22 warps, 68.8 %)
    assert keep(256) and not keep(704) and not keep({"block_size_x": 704})
    with pytest.raises(TypeError, match="tune_params"):
        keep(256, 2)
    with pytest.raises(TypeError, match="2 parameters"):
        restriction(dev, tune_params=MATMUL).as_constraint(["block_size_x", "block_size_y"])(16)


def synthetic_cache(path, kernel_name, problem_size, tune_params):
    """A Kernel Tuner cache file for simulation mode.  SYNTHETIC: no kernel ran; every
    configuration of the whole space gets a made-up time (a function of its position), so that
    simulation mode can serve whatever configuration the search space keeps.  Only the set of
    configurations tuned is looked at, never the times."""
    entries = {}
    for i, p in enumerate(configs_of(tune_params)):
        key = ",".join(str(v) for v in p.values())
        t = 1.0 + (i * 7919 % 1000) / 1000.0
        entries[key] = dict(p, time=t, times=[t], compile_time=0.0, verification_time=0.0,
                            benchmark_time=t, strategy_time=0.0, framework_time=0.0, timestamp="synthetic")
    doc = {"schema_version": "1.0.0", "device_name": "synthetic (no GPU)", "kernel_name": kernel_name,
           "problem_size": problem_size, "tune_params_keys": list(tune_params),
           "tune_params": tune_params, "objective": "time", "cache": entries}
    with open(path, "w") as f:  # closed as Kernel Tuner closes its own: the last two braces on two lines
        f.write(json.dumps(doc)[:-2] + "}\n}")


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_tune_kernel_simulation_mode(example, tmp_path):
    kernel_tuner_searchspace()
    from kernel_tuner import tune_kernel
    tune_params, rules, slm, min_occ = EXAMPLES[example]
    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=min_occ, barrier=True, slm=slm, regs=32, tune_params=tune_params)
    cache = tmp_path / f"{example}.json"
    size = (4096, 4096)
    synthetic_cache(cache, example, size, tune_params)
    want = expected_space(dev, tune_params, rules, slm, min_occ)
    for restrictions in ([*rules, keep], [*rules, keep.as_constraint(tune_params)]):
        results, _ = tune_kernel(example, "__global__ void unused() {}", size, [], tune_params,
                                 restrictions=restrictions, cache=str(cache), simulation_mode=True,
                                 strategy="brute_force", quiet=True)
        got = {tuple(r[k] for k in tune_params) for r in results}
        assert got == want, f"{example}: tuned {len(got)} configurations, occ's answer {len(want)}"
