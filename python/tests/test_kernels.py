"""occ.kernels: the kernel readers from Python, against the committed kernel
files and the same library answers the C tests check (tests/kernels/intel,
tests/data/kernels/nvidia)."""
import os
import struct
import subprocess
import sys

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


def test_amdgpu_resources_and_residency():
    f = occ.kernels(AMDGPU)
    assert f.format == "amdgpu" and len(f) == 21
    k = f["lds_64k"]
    # LLVM's remarks of the same compile (tests/data/kernels/amd/gfx1100_w32.remarks)
    assert (k.vendor, k.target, k.simd, k.static_slm, k.max_wg_size) == ("amd", "gfx1100", 32, 65536, 256)
    # the same remarks: 7 VGPRs, no AGPRs (gfx1100 has none), 18 SGPRs, WGP mode
    assert (k.vgprs, k.agprs, k.sgprs, k.vgpr_spills, k.dynamic_stack, k.wgp_mode) == (7, 0, 18, 0, False, True)
    assert k.residency_args["regs"] == 7 and k.residency_args["sgprs"] == 18
    assert "cu_mode" not in k.residency_args
    # on the RX 7900 XTX (gfx1100, WGP mode): 128 KB of LDS per WGP hold two
    # work-groups of 64 KB, 2 x 8 waves on 4 SIMDs: LLVM's 4 waves per SIMD
    r = occ.device("rx-7900xtx").residency(256, **k.residency_args)
    assert (r.resident_wgs, r.limiter, r.occupancy) == (2, "slm", 0.25)


def test_amdgpu_cu_mode_and_sgprs():
    # -mcumode: each work-group in one CU of the WGP, 64 KB of LDS each: 2 x
    # floor(64 KB / 24 KB) = 4 work-groups per WGP, where WGP mode's 128 KB hold 5
    k = occ.kernels(AMDGPU.replace("gfx1100_w32.o", "gfx1100_w32_cu.o"))["lds_24k"]
    assert k.residency_args["cu_mode"] is True
    dev = occ.device("rx-7900xtx")
    assert dev.residency(256, **k.residency_args).resident_wgs == 4
    assert dev.residency(256, **{**k.residency_args, "cu_mode": False}).resident_wgs == 5
    # GFX9: 90 SGPRs leave 8 waves per SIMD (10 without): 4 x 8 / 4 waves per work-group
    mi25 = occ.device("mi25")
    assert mi25.residency(256, regs=16).resident_wgs == 10
    r = mi25.residency(256, regs=16, sgprs=90)
    assert (r.resident_wgs, r.limiter) == (8, "registers")


def test_cpp_names_demangled():
    f = occ.kernels(CUBIN, "h100-sxm")
    k = f["_Z6k_tmplILi8EdEvPKT0_PS0_"]
    # libstdc++'s demangler; the mangled form is kept beside it
    assert k.name == "void k_tmpl<8, double>(double const*, double*)"
    assert k.mangled == "_Z6k_tmplILi8EdEvPKT0_PS0_"
    assert f[k.name] is k
    assert f["k_simple"].name == f["k_simple"].mangled == "k_simple"
    # the short forms, as --kernel FILE:NAME takes them
    assert f["k_tmpl<8, double>"] is k
    with pytest.raises(KeyError, match="'k_tmpl' names 3 kernels"):
        f["k_tmpl"]


def test_bad_files(tmp_path):
    with pytest.raises(occ.OccError, match="cannot open"):
        occ.kernels(tmp_path / "missing.cubin")
    p = tmp_path / "text.txt"
    p.write_text("hello")
    with pytest.raises(occ.OccError, match="text that is neither PTX"):
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


# ---- SPIR-V through the Intel driver ----------------------------------------
# The package opens the Level Zero loader at run time, as occcalc does
# (docs/python.md, "Compiled kernels").  CI has the driver in hardware-less
# mode and sets OCC_TEST_REQUIRE_ZE=1: there these tests must run, not skip.
CL_SOURCE = os.path.join(ROOT, "tests", "kernels", "intel", "kernels.cl")
PTOK = os.path.join(ROOT, "tests", "kernels", "intel", "kernels_tgllp.ptok")
NO_ZE_BUILD = "built without the Level Zero headers"


def _skip_or_fail(why):
    if os.environ.get("OCC_TEST_REQUIRE_ZE") == "1":
        pytest.fail(why + " (OCC_TEST_REQUIRE_ZE=1)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def spirv_file(tmp_path_factory):
    """kernels.cl as SPIR-V, made by the driver's ocloc."""
    out = tmp_path_factory.mktemp("spirv")
    try:
        r = subprocess.run(["ocloc", "compile", "-file", CL_SOURCE, "-device", "tgllp", "-spv_only",
                            "-output_no_suffix", "-output", "kernels", "-out_dir", str(out),
                            "-options", "-cl-std=CL2.0", "-q"],
                           capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        _skip_or_fail("no ocloc (intel-opencl-icd) to make SPIR-V")
    spv = out / "kernels.spv"
    if r.returncode != 0 or not spv.exists():
        _skip_or_fail(f"ocloc could not make SPIR-V: {r.stdout}{r.stderr}")
    return spv


def test_spirv_read_through_the_driver(spirv_file):
    try:
        f = occ.kernels(spirv_file, "tgl")
    except occ.OccError as e:
        # no driver (UNSUPPORTED), or one that cannot run here (DEVICE: under
        # AddressSanitizer the driver's own dlopen is refused)
        if e.status not in ("OCC_ERR_UNSUPPORTED", "OCC_ERR_DEVICE"):
            raise
        _skip_or_fail(f"the Intel driver is not usable here: {e}")
    assert f.format == "spirv"
    assert f.note.startswith("compiled by the Intel driver for tgllp")
    # What the source fixes (kernels.cl's attributes, arrays and barriers) is the
    # same as in the patch-token binary the same driver made of the same source.
    committed = occ.kernels(PTOK)
    fixed = ("name", "required_sub_group", "static_slm", "slm_args", "barriers", "reqd_wg")
    assert [[getattr(k, a) for a in fixed] for k in f] == [[getattr(k, a) for a in fixed] for k in committed]
    assert len(f) == 12 and all(k.vendor == "intel" and k.target == "tgllp" for k in f)
    # hand-read from kernels.cl: local float tile[1024] and a barrier; reqd_work_group_size(64, 2, 1)
    assert (f["k_static_slm"].static_slm, f["k_static_slm"].barriers) == (4096, 1)
    assert f["k_reqd_wg"].reqd_wg == (64, 2, 1)
    assert f["k_sg8"].simd == 8 and f["k_sg8"].residency_args["sg"] == 8


def test_spirv_without_a_driver(tmp_path):
    """No Level Zero loader: the error says the driver is unavailable (occcalc
    exits 4 with the same words), in a fresh interpreter, since the loader is
    looked for once a process."""
    spv = tmp_path / "header_only.spv"
    spv.write_bytes(struct.pack("<5I", 0x07230203, 0x00010000, 0, 1, 0))  # SPIR-V 1.0's header
    code = ("import occ, sys\n"
            "try:\n"
            "    occ.kernels(sys.argv[1], 'tgl')\n"
            "except occ.OccError as e:\n"
            "    print(e.status); print(e)\n")
    env = dict(os.environ, OCC_ZE_LOADER=str(tmp_path / "no_libze_loader.so.1"))
    r = subprocess.run([sys.executable, "-c", code, str(spv)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    status, message = r.stdout.split("\n", 1)
    if NO_ZE_BUILD in message:
        _skip_or_fail("this build of the package has no Level Zero compile service: " + message)
    assert status == "OCC_ERR_UNSUPPORTED"
    assert "cannot compile SPIR-V for tgllp: Level Zero: the loader cannot be opened" in message
    assert "no usable Level Zero GPU driver. Install the Level Zero loader (libze1)" in message
