"""occ.trace: hand-made record files (format in docs/trace.md) read through
the library's trace API, with answers worked out by hand."""
import os

import pytest

import occ

RECORD = (
    "occ-trace 1\n"
    "X dropped 0000000005 other 0000000001 errno 028\n"
    "P 41 1 /bin/app\n"
    "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x9a49 name=Hand-made\n"
    "K 1 ze dev=1 sg=16 req_sg=0 slm=1024 private=0 spill=64 grf=default req_wg=0,0,0 name=k_one\n"
    "L 1 41 ze normal wg=64,1,1 groups=10,1,1 dyn=0 rc=0\n"
    "L 1 42 ze normal wg=64,1,1 groups=10,1,1 dyn=0 rc=0\n"
    "N 42 0 0000000003\n"
    "L 1 42 ze normal wg=256,1,1 groups=?,1,1 dyn=3072 rc=0\n"
    "K 2 ze dev=1 sg=8 req_sg=0 slm=0 private=0 spill=0 grf=large req_wg=0,0,0 name=k_\xff\n"
    "K 3 ze dev=1 sg=8 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=never\n"
    "L 9 41 ze normal wg=8,1,1 groups=1,1,1 dyn=0 rc=0\n"
    "L 1 41 ze nor\0\0\n"
)


@pytest.fixture
def records(tmp_path):
    d = tmp_path / "records"
    d.mkdir()
    (d / "41.rec").write_bytes(RECORD.encode("latin-1"))
    return d


def test_kernels_and_predictions(records):
    t = occ.trace(records)
    # the traced device's shape (96 EUs, SIMD 8, 7 threads per EU, 512) is tgl's
    assert [d["profile"] for d in t.devices] == ["tgl"]
    one = t["k_one"]
    assert one.launches == 6 and one.work_group_sizes == 2 and one.grids == 2
    c = one.configurations[0]
    # 64 work-items at SIMD 16 = 4 thread contexts of 112 per Xe-core: 28 by threads;
    # 1 KB of 64 KB SLM allows 64: 28 resident, every context busy
    assert c.work_group == (64, 1, 1) and c.launches == 5 and c.grid == (10, 1, 1)
    p = c.prediction
    assert (p["resident_wgs"], p["occupancy"], p["limited_by"]) == (28, 1.0, ("threads",))
    # 10 work-groups x 4 contexts on 6 x 112: one wave, 40 / 672 of the GPU
    assert p["waves"] == 1 and abs(p["waves_average_occupancy"] - 40 / 672) < 1e-12
    ind = one.configurations[1]
    assert ind.grid is None and ind.prediction["waves"] is None
    assert ind.prediction["local_memory_bytes"] == 1024 + 3072
    # a kernel created and never launched: no configuration, no next step
    never = t["never"]
    assert never.launches == 0 and never.configurations == () and never.next_step is None


def test_totals_losses_and_launches(records):
    t = occ.trace(records)
    s = t.totals
    assert s["launches"] == 7 and s["launches_of_unknown_kernels"] == 1
    assert s["dropped"] == 5 and s["dropped_records"] == 1
    assert s["dropped_reason"] == os.strerror(28)
    assert s["unreadable_lines"] == 1 and s["threads"] == 2 and s["processes"] == 1
    assert [p["launches"] for p in t.processes] == [7]
    counts = [(l["tid"], l["count"], l["kernel"]) for l in t.launches]
    assert counts == [(41, 1, "k_one"), (42, 4, "k_one"), (42, 1, "k_one"), (41, 1, None)]
    # a launch names its configuration by its index among the kernels' configurations
    flat = [c for k in t for c in k.configurations]
    assert flat[t.launches[1]["configuration"]].work_group == (64, 1, 1)


def test_names_not_utf8_and_a_given_device(records):
    t = occ.trace(records, "dg1")
    assert [d["profile"] for d in t.devices] == ["dg1"]
    names = {k.name for k in t}
    assert "k_\ufffd" in names  # byte 0xff replaced, never an exception
    assert all(k.profile == "dg1" for k in t)


def test_one_file_and_bad_paths(records, tmp_path):
    t = occ.trace(records / "41.rec")
    assert t.totals["launches"] == 7
    with pytest.raises(occ.OccError, match="cannot open the record directory"):
        occ.trace(tmp_path / "missing")
    os.mkfifo(tmp_path / "fifo.rec")
    with pytest.raises(occ.OccError, match="not a regular file"):
        occ.trace(tmp_path / "fifo.rec")
    with pytest.raises(KeyError):
        occ.trace(records)["no-such-kernel"]


def test_launches_outside_the_kernels_bound(tmp_path):
    # Level Zero: a kernel that requires 64x1x1 and a sub-group of 16, launched at 64 (within)
    # and at 128 (outside: the driver refuses it whatever the Xe-core could hold)
    d = tmp_path / "records"
    d.mkdir()
    (d / "7.rec").write_text(
        "occ-trace 1\n"
        "P 7 1 /bin/app\n"
        "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x9a49 name=Hand-made\n"
        "K 1 ze dev=1 sg=16 req_sg=16 slm=0 private=0 spill=0 grf=default req_wg=64,1,1 name=fixed\n"
        "L 1 7 ze normal wg=64,1,1 groups=4,1,1 dyn=0 rc=0\n"
        "L 1 7 ze normal wg=128,1,1 groups=4,1,1 dyn=0 rc=0\n"
        "L 1 7 ze normal wg=128,1,1 groups=8,1,1 dyn=0 rc=0\n")
    t = occ.trace(d)
    k = t["fixed"]
    assert k.resources["required_work_group"] == (64, 1, 1)
    within, out, out2 = k.configurations
    assert not within.outside_bound and within.prediction["launchable"]
    assert within.prediction["resident_wgs"] == 28  # 4 contexts of 112
    assert out.outside_bound and out2.outside_bound and not out.prediction["launchable"]
    assert "required work-group size 64x1x1" in out.prediction["reason"]
    assert k.launches_outside_bound == 2 and t.totals["launches_outside_bound"] == 2
