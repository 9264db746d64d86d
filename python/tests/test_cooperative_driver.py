"""The cooperative maximum against the Intel driver's own answers.

tests/data/ze/cooperative/driver.csv holds zeKernelSuggestMaxCooperativeGroupCount
of the Intel driver in hardware-less mode for every product it offers, both
GRF modes and a kernel set of work-group sizes, sub-groups, barriers and SLM
sizes (recorded by tests/validate/ze/test_ze_driver.c --record-coop).  Each
product's rows are answered at once by Device.residency_batch on the product's
built-in profile: cooperative_max equals the driver's answer on every row, and
what the driver refuses is not launchable with cooperative_max 0."""
import csv
import os

import numpy as np
import pytest

import occ

# The driver's product names and the built-in profiles of the same devices.
PROFILES = {"tgllp": "tgl", "dg1": "dg1", "rkl": "rkl", "skl": "gen9", "icllp": "gen11"}
COLUMNS = ["product", "grf", "wg", "sg", "barrier", "slm", "driver", "refusal"]


def _rows(source_root):
    path = os.path.join(source_root, "tests", "data", "ze", "cooperative", "driver.csv")
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    reader = csv.DictReader(lines)
    assert reader.fieldnames == COLUMNS
    return list(reader)


@pytest.fixture(scope="module")
def rows(source_root):
    return _rows(source_root)


def test_recording_covers_every_product_both_grf_modes(rows):
    seen = {(r["product"], r["grf"]) for r in rows}
    assert seen == {(p, g) for p in PROFILES for g in ("0", "256")}
    # the kernel set: the SLM granule's edges, barriers, refusals of both kinds
    slms = {int(r["slm"]) for r in rows}
    assert {0, 1, 1024, 1025, 65536, 65537} <= slms
    assert {r["barrier"] for r in rows} == {"0", "1"}
    assert {r["refusal"] for r in rows if r["driver"] == "refused"} == {
        "work-group over the driver's maximum", "SLM over the driver's maximum"}
    # the driver answers the large-GRF build with the default GRF's counts
    default = {tuple(r[c] for c in COLUMNS if c != "grf"): r for r in rows if r["grf"] == "0"}
    for r in rows:
        if r["grf"] == "256":
            assert default[tuple(r[c] for c in COLUMNS if c != "grf")]["driver"] == r["driver"]


@pytest.mark.parametrize("grf", [0, 256])
@pytest.mark.parametrize("product", sorted(PROFILES))
def test_batch_cooperative_max_equals_the_driver(rows, product, grf):
    mine = [r for r in rows if r["product"] == product and int(r["grf"]) == grf]
    assert len(mine) > 500

    def column(name):
        return np.array([int(r[name]) for r in mine], dtype=np.int64)

    b = occ.device(PROFILES[product]).residency_batch(
        column("wg"), sg=column("sg"), slm=column("slm"), barrier=column("barrier").astype(bool),
        grf=grf)
    refused = np.array([r["driver"] == "refused" for r in mine])
    driver = np.array([0 if r["driver"] == "refused" else int(r["driver"]) for r in mine], dtype=np.uint64)
    assert (driver[~refused] > 0).all()  # a count of 0 would read as a refusal
    launchable = np.asarray(b.launchable, dtype=bool)
    wrong = np.flatnonzero((b.cooperative_max != driver) | (launchable == refused))
    assert wrong.size == 0, [
        (mine[i]["wg"], mine[i]["sg"], mine[i]["barrier"], mine[i]["slm"], mine[i]["driver"],
         int(b.cooperative_max[i]), bool(launchable[i])) for i in wrong[:10]]


def test_large_grf_runs_in_the_one_mode_everywhere():
    # a device with one GRF mode answers a large-GRF request as its default,
    # as the driver does; a device with that mode uses it
    tgl = occ.device("tgl")
    want = tgl.residency(256, sg=8, barrier=True)
    got = tgl.residency(256, sg=8, barrier=True, grf=256)
    assert got.launchable and got.grf == 128
    assert (got.resident_wgs, got.cooperative_max) == (want.resident_wgs, want.cooperative_max)
    assert tgl.slm_limit(256, sg=8, grf=256) == tgl.slm_limit(256, sg=8)
    assert (tgl.phases(256, 100, sg=8, grf=256).work_groups_resident.tolist()
            == tgl.phases(256, 100, sg=8).work_groups_resident.tolist())
    assert (tgl.sweep("wg", sg=8, grf=256, start=64, stop=256, step=64).resident_wgs.tolist()
            == tgl.sweep("wg", sg=8, start=64, stop=256, step=64).resident_wgs.tolist())
    acm = occ.device("arc-a770").residency(256, sg=8, grf=256)
    assert acm.grf == 256 and acm.resident_wgs == 2  # 16 XVE x 4 threads = 64 per Xe-core, 32 a work-group
