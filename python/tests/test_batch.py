"""residency_batch: broadcasting, dtypes, layouts and sizes; always the
same numbers as the scalar call."""
import numpy as np
import pytest

import occ


@pytest.fixture(scope="module")
def tgl():
    return occ.device("tgl")


def scalar_grid(dev, wg, sg):
    return np.array([[dev.residency(int(w), sg=int(s)).resident_wgs if
                      dev.residency(int(w), sg=int(s)).launchable else 0 for s in sg] for w in wg])


def test_broadcast_grid(tgl):
    wg = np.arange(1, 600)
    sg = np.array([0, 8, 12, 16, 32])
    b = tgl.residency_batch(wg[:, None], sg=sg[None, :])
    assert b.shape == (599, 5) and b.resident_wgs.dtype == np.uint32
    np.testing.assert_array_equal(b.resident_wgs, scalar_grid(tgl, wg, sg))
    # sg 12 is not supported; sizes over 512 cannot launch.
    assert (b.reason[:, 2] == 3).all() and not b.launchable[512:].any()
    occ_ = np.array([[tgl.residency(int(w), sg=int(s)).occupancy if w <= 512 and s != 12 else 0
                      for s in sg] for w in wg])
    np.testing.assert_array_equal(b.occupancy, occ_)


def test_seed_in_a_batch(tgl):
    b = tgl.residency_batch(320, sg=8)
    assert b.shape == () and int(b.resident_wgs) == 2
    assert float(b.occupancy) == pytest.approx(80 / 112)
    assert b.limiter() == "threads" and int(b.contexts_per_wg) == 40


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_integer_dtypes(tgl, dtype):
    wg = np.array([1, 16, 64, 100, 127], dtype=dtype)
    b = tgl.residency_batch(wg, sg=np.array(16, dtype=dtype))
    ref = tgl.residency_batch(wg.astype(np.int64), sg=16)
    np.testing.assert_array_equal(b.resident_wgs, ref.resident_wgs)


def test_bool_barrier_and_layouts(tgl):
    rng = np.random.default_rng(3)
    wg = rng.integers(1, 513, (40, 30))
    slm = rng.integers(0, 70_000, (40, 30))
    barrier = rng.random((40, 30)) < 0.5
    # Transposed, strided and Fortran-ordered views give the same answers.
    for view in (lambda a: a, lambda a: a.T.copy().T, lambda a: np.asfortranarray(a)):
        b = tgl.residency_batch(view(wg), sg=16, slm=view(slm), barrier=view(barrier))
        for i in (0, 7, 39):
            for j in (0, 13, 29):
                r = tgl.residency(int(wg[i, j]), sg=16, slm=int(slm[i, j]),
                                  barrier=bool(barrier[i, j]))
                assert b.resident_wgs[i, j] == (r.resident_wgs if r.launchable else 0)
    step = tgl.residency_batch(wg[::3, ::2], sg=16)
    np.testing.assert_array_equal(step.resident_wgs,
                                  tgl.residency_batch(wg, sg=16).resident_wgs[::3, ::2])


def test_sizes_around_the_chunk(tgl):
    chunk = occ._occ._BATCH_CHUNK
    for n in (0, 1, 47, 48, chunk - 1, chunk, chunk + 1, 3 * chunk + 5):
        wg = (np.arange(n) % 600).astype(np.int32)  # int32: goes through the cast buffers
        b = tgl.residency_batch(wg, sg=32)
        assert b.shape == (n,)
        if n:
            ref = np.array([tgl.residency(int(w), sg=32).resident_wgs if 0 < w <= 512 else 0
                            for w in wg[:600]])
            np.testing.assert_array_equal(b.resident_wgs[:600], ref)


def random_kernels(dev, n, rng):
    """n random kernels of dev, every input varying: the nine columns."""
    info = dev.describe()
    top, slm_max = info["max_work_group_size"], info["slm_max_per_work_group"]
    sgs = np.array(info["sub_group_sizes"] + [0, 3])
    modes = np.array([m[0] for m in info["grf_modes"]] + [0])
    return {"wg": rng.integers(1, top + 2, n), "wg_y": rng.integers(1, 3, n), "wg_z": rng.integers(1, 3, n),
            "sg": sgs[rng.integers(0, len(sgs), n)], "slm": rng.integers(0, slm_max + 2, n),
            "barrier": rng.random(n) < 0.5, "grf": modes[rng.integers(0, len(modes), n)],
            "regs": rng.integers(0, 256, n), "carveout": rng.integers(-1, 102, n)}


def scalar_answers(dev, cols, rows):
    """residency one by one for the given rows: the batch's six fields."""
    out = []
    for i in rows:
        r = dev.residency((int(cols["wg"][i]), int(cols["wg_y"][i]), int(cols["wg_z"][i])),
                          sg=int(cols["sg"][i]) or None, slm=int(cols["slm"][i]),
                          barrier=bool(cols["barrier"][i]), grf=int(cols["grf"][i]) or None,
                          regs=int(cols["regs"][i]) or None,
                          carveout=None if cols["carveout"][i] < 0 else int(cols["carveout"][i]))
        ok = r.launchable
        out.append((r.resident_wgs if ok else 0, r.occupancy if ok else 0.0, r.contexts_per_wg,
                    r.contexts_per_core, r.limited_by_mask if ok else 0, r.reason_code))
    return out


FIELDS = ("resident_wgs", "occupancy", "contexts_per_wg", "contexts_per_core", "limited_by", "reason")
DEFAULTS = {"wg": 1, "wg_y": 1, "wg_z": 1, "sg": 0, "slm": 0, "barrier": False, "grf": 0, "regs": 0, "carveout": -1}


@pytest.mark.parametrize("name", ["tgl", "h100-sxm", "mi300x"])
def test_chunks_of_default_inputs(name):
    # a chunk whose column holds only its default goes to the library as no
    # column (its default); the answers stay residency's: each input is its
    # default in the whole first chunk, in the third but for one row, and
    # varies in the second and the tail
    dev = occ.device(name)
    chunk = occ._occ._BATCH_CHUNK
    n = 3 * chunk + 100
    rng = np.random.default_rng(11)
    cols = random_kernels(dev, n, rng)
    for key, default in DEFAULTS.items():
        cols[key][:chunk] = default
        cols[key][2 * chunk:3 * chunk] = default
        cols[key][2 * chunk + 17 + len(key)] = cols[key][chunk + 5]
    b = dev.residency_batch(cols["wg"], **{k: v for k, v in cols.items() if k != "wg"}, threads=1)
    edges = [e + d for e in (0, chunk, 2 * chunk, 3 * chunk) for d in range(-3, 4) if 0 <= e + d < n]
    rows = sorted(set(edges + [2 * chunk + 17 + len(k) for k in DEFAULTS] + list(rng.integers(0, n, 300))))
    got = [tuple(getattr(b, f)[i] for f in FIELDS) for i in rows]
    assert got == scalar_answers(dev, cols, rows)
    # the same kernels in another order (chunks of mixed defaults): the same answers
    order = rng.permutation(n)
    mixed = dev.residency_batch(cols["wg"][order], **{k: v[order] for k, v in cols.items() if k != "wg"},
                                threads=1)
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(mixed, f), getattr(b, f)[order], f)
    assert (b.cooperative_max[order] == mixed.cooperative_max).all()


@pytest.mark.parametrize("name", ["tgl", "h100-sxm"])
def test_columns_of_every_integer_dtype(name):
    # each input as another dtype (read as it is; a byte-swapped one through
    # NumPy's cast): the same answers as int64 columns, and a value out of
    # range still named as it is
    dev = occ.device(name)
    n = occ._occ._BATCH_CHUNK + 1000
    cols = random_kernels(dev, n, np.random.default_rng(13))
    ref = dev.residency_batch(cols["wg"], **{k: v for k, v in cols.items() if k != "wg"}, threads=1)
    fits = {"wg": ["<u2", ">i4", "<u8"], "wg_y": ["<i1", "<u4"], "wg_z": ["<u1", ">u2"], "sg": ["<i1", "<u8"],
            "slm": ["<i4", "<u4", ">i8"], "barrier": ["?", "<i2"], "grf": ["<u2", ">i8"], "regs": ["<u1", "<i2"],
            "carveout": ["<i1", "<i2", ">i4"]}
    for round_ in range(3):
        typed = {k: cols[k].astype(np.dtype(fits[k][round_ % len(fits[k])])) for k in cols}
        b = dev.residency_batch(typed["wg"], **{k: v for k, v in typed.items() if k != "wg"}, threads=1)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(b, f), getattr(ref, f), f"{f} {round_}")
        np.testing.assert_array_equal(b.cooperative_max, ref.cooperative_max)
    for key, dtype, bad in (("wg", "<i2", -5), ("carveout", "<i1", -2), ("barrier", "<u1", 2), ("sg", ">i4", -9),
                            ("slm", "<i4", -1)):
        typed = {k: cols[k].astype(np.dtype(fits[k][0])) for k in cols}
        typed[key] = typed[key].astype(np.dtype(dtype))
        typed[key][n - 3] = bad
        with pytest.raises(ValueError, match=f"{key} contains {bad}:"):
            dev.residency_batch(typed["wg"], **{k: v for k, v in typed.items() if k != "wg"})


def test_three_dimensions(tgl):
    b = tgl.residency_batch(8, wg_y=np.array([1, 2, 4, 8]), wg_z=np.array([[1], [8]]), sg=16)
    assert b.shape == (2, 4)
    for i, z in enumerate((1, 8)):
        for j, y in enumerate((1, 2, 4, 8)):
            r = tgl.residency((8, y, z), sg=16)
            assert b.resident_wgs[i, j] == (r.resident_wgs if r.launchable else 0)


def test_nvidia_inputs():
    h = occ.device("h100-sxm")
    regs = np.arange(0, 260, 8)
    carve = np.array([-1, 0, 50, 100, 101])
    b = h.residency_batch(256, regs=regs[:, None], slm=48 * 1024, carveout=carve[None, :])
    for i, rg in enumerate(regs):
        for j, c in enumerate(carve):
            r = h.residency(256, regs=int(rg), slm=48 * 1024, carveout=int(c))
            assert b.reason[i, j] == r.reason_code
            assert b.resident_wgs[i, j] == (r.resident_wgs if r.launchable else 0)
            assert b.occupancy[i, j] == (r.occupancy if r.launchable else 0.0)


def test_batch_cooperative_max_equals_one_by_one():
    # the batch's cooperative maximum is Residency.cooperative_max for each kernel,
    # on an Intel profile (the driver's rule) and an NVIDIA one (blocks per SM x SMs)
    for name in ("tgl", "arc-a770", "h100-sxm"):
        dev = occ.device(name)
        wg = np.array([8, 64, 256, 320, 512, 1024, 2048])
        for barrier in (0, 1):
            for slm in (0, 3000, 40000):
                b = dev.residency_batch(wg, barrier=barrier, slm=slm)
                want = [dev.residency(int(w), barrier=bool(barrier), slm=slm).cooperative_max for w in wg]
                assert b.cooperative_max.tolist() == want, (name, barrier, slm)
    # the recorded driver answer for tgl, 320 x SIMD8, no barrier: 16
    assert occ.device("tgl").residency_batch(320, sg=8).cooperative_max == 16


def test_batch_cooperative_max_is_of_the_inputs_at_the_call():
    # cooperative_max is computed when first read: from the inputs as they were
    # at the call, not as the caller changed them since
    dev = occ.device("tgl")
    slm = np.array([0, 0, 0], dtype=np.int64)
    barrier = np.array([True, True, False])
    b = dev.residency_batch(np.array([8, 8, 64]), sg=8, slm=slm, barrier=barrier)
    slm[:] = 60000
    barrier[:] = False
    assert b.cooperative_max.tolist() == [192, 192, 84]  # 32 per Xe-core x 6 with a barrier
    assert b.cooperative_max is b.cooperative_max         # computed once
    # broadcast inputs give the answers' shape
    grid = dev.residency_batch(np.array([[64], [128]]), sg=8, slm=np.array([0, 4096]), barrier=True)
    assert grid.cooperative_max.shape == (2, 2)
    assert grid.cooperative_max.tolist() == [[dev.residency(w, sg=8, slm=s, barrier=True).cooperative_max
                                              for s in (0, 4096)] for w in (64, 128)]
    # what it reads is the batch's own copy, which nobody can write
    _, kept_barrier, kept_slm = b._cooperative_inputs
    assert not kept_barrier.flags.writeable and not kept_slm.flags.writeable
    # Fortran-ordered inputs (the results' columns written through strides)
    rng = np.random.default_rng(5)
    wg = np.asfortranarray(rng.integers(1, 600, (30, 20)))
    slm = np.asfortranarray(rng.integers(0, 70_000, (30, 20)))
    barrier = np.asfortranarray(rng.random((30, 20)) < 0.5)
    f = dev.residency_batch(wg, sg=16, slm=slm, barrier=barrier)
    want = [[dev.residency(int(wg[i, j]), sg=16, slm=int(slm[i, j]), barrier=bool(barrier[i, j])).cooperative_max
             for j in range(20)] for i in range(30)]
    slm[:] = 0
    assert f.cooperative_max.tolist() == want


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_threads_give_the_same_answers(tgl, threads):
    # a batch split between threads (65536 configurations at least each) answers
    # as one thread does, for every layout the threads' ranges cut through
    rng = np.random.default_rng(7)
    n = 5 * 65536 + 123
    wg = rng.integers(1, 700, n)
    slm = rng.integers(0, 70_000, n)
    barrier = rng.random(n) < 0.5
    one = tgl.residency_batch(wg, sg=16, slm=slm, barrier=barrier, threads=1)
    many = tgl.residency_batch(wg, sg=16, slm=slm, barrier=barrier, threads=threads)
    for f in ("resident_wgs", "occupancy", "contexts_per_wg", "contexts_per_core", "limited_by", "reason"):
        np.testing.assert_array_equal(getattr(many, f), getattr(one, f), f)
    grid = tgl.residency_batch(wg[:4096, None], sg=np.array([8, 16, 32] * 40)[None, :], threads=threads)
    np.testing.assert_array_equal(grid.resident_wgs,
                                  tgl.residency_batch(wg[:4096, None], sg=np.array([8, 16, 32] * 40)[None, :],
                                                      threads=1).resident_wgs)


def test_threads_name_the_first_bad_value(tgl):
    # bad values in two threads' ranges: the message names the first in order
    wg = np.full(4 * 65536, 64, dtype=np.int64)
    wg[3 * 65536 + 5] = -7
    wg[65536 + 9] = -3
    with pytest.raises(ValueError, match="wg contains -3"):
        tgl.residency_batch(wg, threads=4)
    with pytest.raises(ValueError, match="threads must be in 1..64"):
        tgl.residency_batch(wg, threads=0)


def test_batch_honours_the_kernels_constraints():
    # launch bounds, required sub-group and work-group sizes: every row equals
    # residency's answer with the same constraints (refusals named by reason)
    rng = np.random.default_rng(11)
    for name in ("tgl", "h100-sxm", "mi300x"):
        dev = occ.device(name)
        n = 3000
        wg = rng.integers(1, 1100, n)
        sg = rng.choice([0] + dev.sub_group_sizes, n)
        max_wg = rng.choice([0, 64, 128, 256, 512], n)
        reqd_sg = rng.choice([0] + dev.sub_group_sizes, n)
        b = dev.residency_batch(wg, sg=sg, max_wg=max_wg, reqd_sg=reqd_sg)
        for i in range(0, n, 7):
            r = dev.residency(int(wg[i]), sg=int(sg[i]) or None, max_wg=int(max_wg[i]) or None,
                              reqd_sg=int(reqd_sg[i]) or None)
            assert b.reason[i] == r.reason_code, (name, i)
            assert b.resident_wgs[i] == (r.resident_wgs if r.launchable else 0), (name, i)
            assert b.occupancy[i] == (r.occupancy if r.launchable else 0.0), (name, i)
            assert b.cooperative_max[i] == r.cooperative_max, (name, i)
        # over the bound and otherwise launchable: refused for the bound
        over = (max_wg != 0) & (wg > max_wg) & ((reqd_sg == 0) | (reqd_sg == sg))
        plain = dev.residency_batch(wg, sg=sg)
        named = over & plain.launchable
        assert named.any() and {occ.REASONS[c] for c in b.reason[named]} == {"work-group over the kernel's launch bound"}
    tgl = occ.device("tgl")
    # a required work-group size: only that shape launches
    b = tgl.residency_batch(np.array([64, 128, 256]), sg=16, reqd_wg=(128, 1, 1))
    assert b.launchable.tolist() == [False, True, False]
    assert int(b.resident_wgs[1]) == tgl.residency(128, sg=16).resident_wgs
    # scalars broadcast too; a bad bound is a ValueError naming the value
    assert not tgl.residency_batch(512, sg=16, max_wg=256).launchable
    with pytest.raises(ValueError, match="max_wg contains -1: must be in 0..4294967295"):
        tgl.residency_batch(64, max_wg=-1)


def test_batch_constraints_dense_and_shaped():
    # every row constrained (a kernel file's bounds over a whole search), the
    # required shape's dimensions as arrays too, work-groups in 2-D and 3-D:
    # each row equals residency's answer, contexts included
    rng = np.random.default_rng(5)
    for name in ("tgl", "arc-a770", "h100-sxm", "mi300x"):
        dev = occ.device(name)
        n = 4000
        x = rng.integers(1, 40, n)
        y = rng.integers(1, 9, n)
        z = rng.integers(1, 4, n)
        sg = rng.choice([0] + dev.sub_group_sizes, n)
        max_wg = rng.integers(1, dev.max_work_group_size + 64, n)
        reqd_sg = rng.choice([0, 3] + dev.sub_group_sizes, n)
        reqd_x = np.where(rng.random(n) < 0.5, x, rng.integers(0, 40, n))
        reqd_y = np.where(rng.random(n) < 0.7, y, 0)
        b = dev.residency_batch(x, wg_y=y, wg_z=z, sg=sg, max_wg=max_wg, reqd_sg=reqd_sg,
                                reqd_wg=(reqd_x, reqd_y, z))
        reasons = set()
        for i in range(0, n, 3):
            r = dev.residency((int(x[i]), int(y[i]), int(z[i])), sg=int(sg[i]) or None,
                              max_wg=int(max_wg[i]), reqd_sg=int(reqd_sg[i]) or None,
                              reqd_wg=(int(reqd_x[i]), int(reqd_y[i]), int(z[i])))
            got = (b.reason[i], b.resident_wgs[i], b.occupancy[i], b.contexts_per_wg[i], b.contexts_per_core[i])
            want = (r.reason_code, r.resident_wgs if r.launchable else 0, r.occupancy if r.launchable else 0.0,
                    r.contexts_per_wg, r.contexts_per_core)
            assert got == want, (name, i)
            reasons.add(occ.REASONS[r.reason_code])
        assert {"work-group over the kernel's launch bound",
                "work-group not the kernel's required size",
                "sub-group not the kernel's required size"} <= reasons, (name, reasons)
    # AMD's fields: SGPRs and CU mode, row by row as residency (the rule answers them)
    for name in ("mi300x", "rx-7900xtx", "tgl"):
        dev = occ.device(name)
        n = 600
        wg = rng.integers(1, dev.max_work_group_size + 1, n)
        sgprs = rng.choice([0, 16, 80, 96, 104, 112], n)
        cu_mode = rng.random(n) < 0.5
        b = dev.residency_batch(wg, sgprs=sgprs, cu_mode=cu_mode, max_wg=512)
        for i in range(n):
            r = dev.residency(int(wg[i]), sgprs=int(sgprs[i]) or None, cu_mode=bool(cu_mode[i]), max_wg=512)
            assert (b.reason[i], b.resident_wgs[i], b.occupancy[i]) == \
                (r.reason_code, r.resident_wgs if r.launchable else 0, r.occupancy if r.launchable else 0.0), (name, i)
    tgl = occ.device("tgl")
    # a required sub-group size stands in for sub-group 0, as in residency
    b = tgl.residency_batch(np.array([64, 64]), reqd_sg=np.array([16, 4]))
    assert b.reason.tolist() == [0, occ.REASONS.index("sub-group size not supported")]
    assert int(b.contexts_per_wg[0]) == 4
    # a bad dimension of the required shape is named
    with pytest.raises(ValueError, match=r"reqd_wg\[1\] contains -1"):
        tgl.residency_batch(64, reqd_wg=(64, -1))
    with pytest.raises(ValueError, match="reqd_wg must have 1 to 3 dimensions"):
        tgl.residency_batch(64, reqd_wg=(64, 1, 1, 1))
