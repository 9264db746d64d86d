#!/usr/bin/env python3
"""Regenerate the AMD corpus in tests/data/kernels/amd/ (not run by the tests).

For every target and wave size, kernels.cl is compiled into an AMDGPU code
object (<target>_w<wave>.o; _cu: in CU mode) and LLVM's resource remarks of that compile
(-Rpass-analysis=kernel-resource-usage) are kept beside it
(<target>_w<wave>.remarks): the truth the reader's tests compare with.
kernels.hip becomes an offload bundle, a compressed bundle and a host object
that carries one, with the remarks of each architecture.

Needs clang-19 and ld.lld-19 (Debian: apt-get install clang-19 lld-19).
Usage: make_corpus.py [CLANG]
"""
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parents[1] / "data" / "kernels" / "amd"
CLANG = sys.argv[1] if len(sys.argv) > 1 else "clang-19"

# GCN/CDNA run wave64 only; RDNA runs both (wave32 by default).
TARGETS = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942",
           "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201"]
MFMA = {"gfx908", "gfx90a", "gfx942"}
HIP_ARCHS = ["gfx90a", "gfx1100"]
REMARKS = ["-Rpass-analysis=kernel-resource-usage", "-fno-caret-diagnostics",
           "-fno-color-diagnostics"]


def waves(target):
    return [64] if target.startswith("gfx9") else [32, 64]


def run(cmd, out_remarks=None):
    """Run a compile in this folder (so remarks name kernels.cl, no path);
    keep its remark lines."""
    r = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    lines = [l for l in r.stderr.splitlines() if " remark: " in l]
    if out_remarks:
        (OUT / out_remarks).write_text("\n".join(lines) + "\n")
    return lines


def opencl(target, wave, extra=(), name=None):
    name = name or f"{target}_w{wave}"
    cmd = [CLANG, "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
           "-nogpulib", "--target=amdgcn-amd-amdhsa", f"-mcpu={target}", "-O3",
           "-mwavefrontsize64" if wave == 64 else "-mno-wavefrontsize64",
           f"-DHAS_MFMA={int(target in MFMA)}", *extra, *REMARKS,
           "-c", "-o", str(OUT / f"{name}.o"), "kernels.cl"]
    run(cmd, f"{name}.remarks")


def hip(extra, out, device_only=True, archs=HIP_ARCHS):
    cmd = [CLANG, "-x", "hip", "-nogpulib", "-nogpuinc", "-O3",
           *[f"--offload-arch={a}" for a in archs], *extra]
    if device_only:
        cmd.append("--offload-device-only")
    run(cmd + ["-c", "-o", str(OUT / out), "kernels.hip"])


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for t in TARGETS:
        for w in waves(t):
            opencl(t, w)
    # CU mode on RDNA (WGP mode is clang's default there): LDS and wave
    # limits differ between the two.
    for t in ["gfx1030", "gfx1100", "gfx1200"]:
        opencl(t, 32, ["-mcumode"], f"{t}_w32_cu")
    # Code object version 4 (clang-19 writes version 5 by default), and a
    # linked code object (a shared object, as the runtime loads it).
    opencl("gfx90a", 64, ["-mcode-object-version=4"], "gfx90a_w64_v4")
    subprocess.run([CLANG, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx1100",
                    "-fuse-ld=lld", "--ld-path=ld.lld-19", "-o", str(OUT / "gfx1100_w32.co"),
                    str(OUT / "gfx1100_w32.o")], check=True)
    # HIP: a bundle, a compressed one, a host object with the bundle inside,
    # and the remarks of each architecture's device compile.
    hip([], "hip_bundle.hipfb")
    hip(["--offload-compress"], "hip_bundle.ccob")
    hip([], "hip_host.o", device_only=False, archs=["gfx90a"])
    for a in HIP_ARCHS:
        lines = run([CLANG, "-x", "hip", "-nogpulib", "-nogpuinc", "-O3", f"--offload-arch={a}",
                     "--offload-device-only", *REMARKS, "-c", "-o", os.devnull, "kernels.hip"])
        (OUT / f"hip_{a}.remarks").write_text("\n".join(lines) + "\n")
    version = subprocess.run([CLANG, "--version"], capture_output=True, text=True).stdout
    (OUT / "CLANG_VERSION").write_text(version.splitlines()[0] + "\n")


if __name__ == "__main__":
    main()
