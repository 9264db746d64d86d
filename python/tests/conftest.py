"""Shared fixtures for the Python package's tests (run_pytest.py runs them).

OCC_REFERENCE: the occ_reference program (libocc.so, occ_residency_compute
one by one); OCC_SOURCE_ROOT: the checkout (shipped profiles).  meson test
sets both; without them the tests that need them fail unless
OCC_TEST_ALLOW_MISSING_REFERENCE=1 (then they skip, saying so)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import occ

IN_COLS = 9
OUT_COLS = ["launchable", "reason", "resident_wgs", "occupancy", "contexts_per_wg",
            "contexts_per_core", "limited_by", "sub_group", "grf", "contexts_used",
            "slm_per_wg_alloc", "limit_threads", "limit_slm", "limit_registers",
            "limit_work_group_slots", "limit_barriers"]


def _need(var):
    value = os.environ.get(var)
    if value:
        return value
    msg = f"{var} is not set (meson test sets it)"
    if os.environ.get("OCC_TEST_ALLOW_MISSING_REFERENCE") == "1":
        pytest.skip(msg)
    pytest.fail(msg)


@pytest.fixture(scope="session")
def source_root():
    return _need("OCC_SOURCE_ROOT")


class Reference:
    """libocc's answers through the C reference program."""

    def __init__(self, path):
        self.path = path

    def eval(self, device, configs):
        configs = np.ascontiguousarray(configs, dtype="<i8")
        assert configs.ndim == 2 and configs.shape[1] == IN_COLS
        with tempfile.TemporaryDirectory() as tmp:
            inp, out = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
            configs.tofile(inp)
            subprocess.run([self.path, "eval", device, inp, out], check=True)
            res = np.fromfile(out, dtype="<f8").reshape(-1, len(OUT_COLS))
        assert res.shape[0] == configs.shape[0]
        return {name: res[:, i] for i, name in enumerate(OUT_COLS)}


@pytest.fixture(scope="session")
def reference():
    return Reference(_need("OCC_REFERENCE"))


def random_configs(dev, n, rng):
    """n random kernels for dev as n x 9 int64 (wg x, y, z, sg, slm, barrier,
    grf, regs, carveout): mostly valid, with a share of every kind of
    unlaunchable input (too large, zero, unsupported sub-group or GRF mode,
    too much local memory, too many registers, carveout out of range)."""
    info = dev.describe()
    maxwg = info["max_work_group_size"]
    dims = rng.integers(1, 4, n)
    size = rng.integers(0, maxwg + maxwg // 8 + 2, n)
    wg = np.ones((n, 3), dtype=np.int64)
    wg[:, 0] = size
    # 2-D and 3-D shapes: split the size into factors where it divides.
    for d, col in ((2, 1), (3, 2)):
        f = rng.choice([1, 2, 4, 8], n)
        ok = (dims >= d) & (wg[:, 0] % f == 0) & (wg[:, 0] > 0)
        wg[ok, 0] //= f[ok]
        wg[ok, col] = f[ok]
    sgs = np.array(info["sub_group_sizes"])
    sg = np.where(rng.random(n) < 0.85, sgs[rng.integers(0, len(sgs), n)],
                  rng.choice([0, 1, 4, 12, 64, 128], n))
    slm_max = info["slm_max_per_work_group"]
    slm = np.where(rng.random(n) < 0.3, 0, rng.integers(0, slm_max + slm_max // 8 + 2, n))
    barrier = rng.integers(0, 2, n)
    modes = np.array([m[0] for m in info["grf_modes"]] or [0])
    grf = np.where(rng.random(n) < 0.6, modes[rng.integers(0, len(modes), n)],
                   rng.choice([0, 1, 64, 96, 300], n))
    if info["has_register_file"]:
        regs = np.where(rng.random(n) < 0.9, rng.integers(0, 129, n), rng.integers(129, 400, n))
        carveout = np.where(rng.random(n) < 0.9, rng.integers(-1, 101, n), rng.integers(101, 300, n))
    else:
        regs = np.where(rng.random(n) < 0.9, 0, rng.integers(0, 256, n))
        carveout = np.where(rng.random(n) < 0.9, -1, rng.integers(0, 101, n))
    return np.column_stack([wg, sg, slm, barrier, grf, regs, carveout]).astype(np.int64)


def batch_of(dev, cfg):
    return dev.residency_batch(cfg[:, 0], wg_y=cfg[:, 1], wg_z=cfg[:, 2], sg=cfg[:, 3],
                               slm=cfg[:, 4], barrier=cfg[:, 5], grf=cfg[:, 6], regs=cfg[:, 7],
                               carveout=cfg[:, 8])


def scalar_of(dev, row):
    wgx, wgy, wgz, sg, slm, barrier, grf, regs, carveout = (int(v) for v in row)
    return dev.residency((wgx, wgy, wgz), sg=sg, slm=slm, barrier=bool(barrier), grf=grf,
                         regs=regs, carveout=carveout)
