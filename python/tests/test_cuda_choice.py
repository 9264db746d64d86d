"""Device.cuda_block_size: CUDA's choice of block size, replayed against what
the driver and runtime answered on a lent H200 (tests/data/cuda/occupancy/,
potential.csv.gz: cuOccupancyMaxPotentialBlockSize and
cudaOccupancyMaxPotentialBlockSize[VariableSMem])."""
import csv
import gzip
import os

import pytest

import occ

RUN = ("tests", "data", "cuda", "occupancy", "h200-2026-11-28")

# the campaign's blockSizeToDynamicSMemSize functions (occupancy_campaign.cu)
SMEM_FNS = [
    lambda b: 4 * b,
    lambda b: 8 * b + 1024,
    lambda b: 64 * b,
    lambda b: 200 * b,
    lambda b: 65536 if b >= 512 else 16384,
]


def rows(path, opener=open):
    with opener(path, "rt") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_equals_the_driver(source_root):
    run = os.path.join(source_root, *RUN)
    kernels = {k["kernel"]: k for k in rows(os.path.join(run, "kernels.csv"))}
    h200 = occ.Device("h200")
    checked = 0
    for r in rows(os.path.join(run, "potential.csv.gz"), gzip.open):
        if r["api"] != "driver":
            continue
        k = kernels[r["kernel"]]
        fn = int(r["smem_fn"])
        got = h200.cuda_block_size(
            slm=SMEM_FNS[fn] if fn >= 0 else int(r["dyn_smem"]),
            static_slm=int(k["shared_size_bytes"]), regs=int(k["num_regs"]),
            block_limit=int(r["block_limit"]), max_threads=int(k["max_threads_per_block"]),
            barrier=r["kernel"] == "k_barrier" or r["kernel"].startswith("k_static"))
        assert (got["block_size"], got["min_grid_size"]) == (int(r["block"]), int(r["min_grid"])), r
        checked += 1
    assert checked == 6630


def test_by_hand():
    h100 = occ.Device("h100-sxm")
    # 16 registers, nothing shared: 1024 x 2 blocks fill the SM, found first from the top
    c = h100.cuda_block_size(regs=16)
    assert c == {"block_size": 1024, "min_grid_size": 264, "resident_wgs": 2, "occupancy": 1.0}
    # 4 bytes per thread: the function is called with each candidate size
    seen = []
    h100.cuda_block_size(regs=16, slm=lambda b: seen.append(b) or 4 * b)
    assert seen[:3] == [1024, 992, 960] and seen[-1] == 32
    assert h100.cuda_block_size(slm=300 * 1024)["block_size"] == 0


def test_bad_input():
    h100 = occ.Device("h100-sxm")
    with pytest.raises(ZeroDivisionError):
        h100.cuda_block_size(slm=lambda b: 1 // 0)
    with pytest.raises(ValueError):
        h100.cuda_block_size(slm=lambda b: -1)
    with pytest.raises(ValueError):
        h100.cuda_block_size(block_limit=-1)
    with pytest.raises(TypeError):
        h100.cuda_block_size(1024)
