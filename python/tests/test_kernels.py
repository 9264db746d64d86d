"""occ.kernels: the kernel readers from Python, against the committed kernel
files and the same library answers the C tests check (tests/kernels/intel,
tests/data/kernels/nvidia)."""
import os

import pytest

import occ

ROOT = os.environ.get("OCC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
ZEBIN = os.path.join(ROOT, "tests", "kernels", "intel", "kernels_tgllp.zebin")
CUBIN = os.path.join(ROOT, "tests", "data", "kernels", "nvidia", "kernels_sm90.cubin")
AMDGPU = os.path.join(ROOT, "tests", "data", "kernels", "amd", "gfx1100_w32.o")


def test_zebin_fields():
    f = occ.kernels(ZEBIN)
    assert f.format == "zebin" and len(f) == 12
    k = f["k_sg16"]
    # compiled SIMD16 because the kernel requires sub-group 16 (intel_reqd_sub_group_size)
    assert (k.vendor, k.simd, k.required_sub_group, k.grf) == ("intel", 16, 16, 128)
    assert k.residency_args["sg"] == 16
    assert f["k_reqd_wg"].reqd_wg is not None


def test_cubin_residency_equals_calc():
    f = occ.kernels(CUBIN, "h100-sxm")
    k = f["k_spill"]
    assert (k.vendor, k.target, k.simd, k.regs) == ("nvidia", "sm_90", 32, 32)
    assert k.max_wg_size is not None
    dev = occ.device("h100-sxm")
    r = dev.residency(256, **k.residency_args)
    # 32 registers x 256 threads: 8 warps a block, 8 blocks fill the 64 warp slots
    assert (r.resident_wgs, r.occupancy) == (8, 1.0)


def test_amdgpu_resources_without_vendor():
    # no AMD device model yet: the resources, and the unknown vendor's word
    f = occ.kernels(AMDGPU)
    assert f.format == "amdgpu" and len(f) == 17
    k = f["lds_64k"]
    # LLVM's remarks of the same compile (tests/data/kernels/amd/gfx1100_w32.remarks)
    assert (k.vendor, k.target, k.simd, k.static_slm, k.max_wg_size) == ("unknown", "gfx1100", 32, 65536, 256)


def test_bad_files(tmp_path):
    with pytest.raises(occ.OccError, match="cannot open"):
        occ.kernels(tmp_path / "missing.cubin")
    p = tmp_path / "text.txt"
    p.write_text("hello")
    with pytest.raises(occ.OccError, match="not a kernel file"):
        occ.kernels(p)
    with pytest.raises(KeyError, match="no kernel named"):
        occ.kernels(ZEBIN)["k_nope"]
    with pytest.raises(TypeError):
        occ.kernels(ZEBIN, device=3.5)


def test_constraints_travel_with_residency_args():
    # __launch_bounds__(256): the bound is in residency_args, and a block over it cannot launch
    k = occ.kernels(CUBIN, "h100-sxm")["k_lb256"]
    assert k.max_wg_size == 256 and k.residency_args["max_wg"] == 256
    dev = occ.device("h100-sxm")
    assert dev.residency(256, **k.residency_args).launchable
    r = dev.residency(512, **k.residency_args)
    assert not r.launchable
    assert r.reason == "work-group of 512 work-items is over the kernel's launch bound 256"
    assert r.cooperative_max == 0
    # a required sub-group size (k_sg16) refuses another one
    z = occ.kernels(ZEBIN)["k_sg16"]
    assert z.residency_args["reqd_sg"] == 16
    tgl = occ.device("tgl")
    args = dict(z.residency_args, sg=8)
    assert tgl.residency(256, **args).reason == "sub-group size 8 is not the kernel's required sub-group size 16"
    # a required work-group size: only that shape
    q = occ.kernels(ZEBIN)["k_reqd_wg"]
    shape = q.residency_args["reqd_wg"]
    assert tgl.residency(shape, **q.residency_args).launchable
    assert not tgl.residency(shape[0] * 2, **q.residency_args).launchable


def test_cooperative_max():
    # tgl, 320 x SIMD8, no barrier: the driver pools 672 contexts / 40 = 16 (recorded answer)
    assert occ.device("tgl").residency(320, sg=8).cooperative_max == 16
    # with a barrier at 8 work-items: the driver's 32 per Xe-core x 6 = 192 (recorded answer)
    assert occ.device("tgl").residency(8, sg=8, barrier=True).cooperative_max == 192
    # NVIDIA: blocks per SM x SMs
    r = occ.device("h100-sxm").residency(256, regs=32)
    assert r.cooperative_max == r.resident_wgs * 132 == 1056
