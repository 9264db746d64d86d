"""Acceptance: the Python answers (batch and scalar) equal libocc's through
the C reference program (occ_residency_compute one by one, over libocc.so)
on random configurations over every built-in profile: 10^5 per profile for
the batch, 10^5 in all for the scalar call."""
import zlib

import numpy as np
import pytest

import occ
from conftest import batch_of, random_configs, scalar_of

BATCH_PER_DEVICE = 100_000
SCALAR_TOTAL = 100_000
DEVICES = occ.builtin_devices()


def test_every_builtin_profile_is_covered():
    assert len(DEVICES) >= 20
    assert {"tgl", "h100-sxm", "max-1550", "a100"} <= set(DEVICES)


@pytest.mark.parametrize("name", DEVICES)
def test_batch_matches_c_library(name, reference):
    dev = occ.device(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    cfg = random_configs(dev, BATCH_PER_DEVICE, rng)
    ref = reference.eval(name, cfg)
    got = batch_of(dev, cfg)
    launch = ref["launchable"] == 1
    # A sane mix: most launch, and some of every device cannot.
    assert 0.2 < launch.mean() < 0.99, launch.mean()
    np.testing.assert_array_equal(got.reason, ref["reason"])
    np.testing.assert_array_equal(got.launchable, launch)
    np.testing.assert_array_equal(got.resident_wgs, np.where(launch, ref["resident_wgs"], 0))
    np.testing.assert_array_equal(got.occupancy, np.where(launch, ref["occupancy"], 0.0))
    np.testing.assert_array_equal(got.limited_by, np.where(launch, ref["limited_by"], 0))
    np.testing.assert_array_equal(got.contexts_per_wg[launch], ref["contexts_per_wg"][launch])
    np.testing.assert_array_equal(got.contexts_per_core[launch], ref["contexts_per_core"][launch])


def test_scalar_matches_c_library(reference):
    per = SCALAR_TOTAL // len(DEVICES) + 1
    checked = 0
    for i, name in enumerate(DEVICES):
        dev = occ.device(name)
        cfg = random_configs(dev, per, np.random.default_rng(1000 + i))
        ref = reference.eval(name, cfg)
        for j in range(per):
            r = scalar_of(dev, cfg[j])
            assert r.launchable == bool(ref["launchable"][j])
            assert r.reason_code == ref["reason"][j]
            assert (r.reason is None) == r.launchable
            assert r.resident_wgs == ref["resident_wgs"][j]
            assert r.occupancy == ref["occupancy"][j]
            assert r.contexts_per_wg == ref["contexts_per_wg"][j]
            assert r.contexts_per_core == ref["contexts_per_core"][j]
            assert r.limited_by_mask == ref["limited_by"][j]
            assert r.sub_group == ref["sub_group"][j]
            assert r.grf == ref["grf"][j]
            assert r.contexts_used == ref["contexts_used"][j]
            assert r.slm_per_wg_alloc == ref["slm_per_wg_alloc"][j]
            for res in occ.RESOURCES:
                want = ref["limit_" + res][j]
                assert r.limits[res] == (None if want == occ.NO_LIMIT else want), (name, j, res)
            checked += 1
    assert checked >= SCALAR_TOTAL
