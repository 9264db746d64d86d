#!/usr/bin/env python3
"""Benchmark of the Python package (docs/python.md, docs/performance.md).

    meson compile -C build bench-python
    python3 python/bench/bench_occ.py [--pythonpath build/python]
        [--reference build/python/occ_reference] [--n 1000000] [--devices tgl,h100-sxm]
        [--constraints | --kept]

Per device, over the same random configurations (the C benchmark's "random
mix": work-group sizes up to a little past the maximum, mostly supported
sub-group sizes, local memory from none to a little too much, barrier or not,
GRF modes, NVIDIA registers and carveouts):

  batch     Device.residency_batch from NumPy int64 arrays, one call for all
            n configurations: configurations per second (target >= 100 M/s),
            with the default threads and with one (wall time, and the
            thread's CPU time, which other work on the machine changes less)
  scalar    Device.residency(...) in a Python loop: ns per call; "loop" is
            the same loop without the call (unpacking the row only)
  ctypes    the same loop through ctypes over libocc.so (--libocc): what a
            user writes by hand without this package
  C         the same configurations in C in the same run (occ_reference
            bench): occ_residency_compute one by one, occ_evaluate_batch,
            and occ_evaluate_columns from ready-made columns (what the
            batch calls after narrowing NumPy's int64 values)

--constraints times only the batch, over the same configurations without
and with the kernel's constraints (every row a launch bound, max_wg, from 32
to the device's maximum; half of them a required sub-group size, reqd_sg):
configurations per second, all threads and one.

--kept times the batch on one thread with its results dropped (the block is
reused) and kept (each call faults in a fresh block), and what faulting in
a fresh block of that size costs with 4 KB pages and with transparent huge
pages advised (ns a configuration, the better of 5 each).

Times are the thread's CPU time (time.thread_time), best of 5 rounds; the
machine and the date are printed with the figures.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} CPUs, load average {load:.2f}"


def random_configs(np, dev, n, rng):
    info = dev.describe()
    maxwg = info["max_work_group_size"]
    sgs = np.array(info["sub_group_sizes"])
    wg = rng.integers(1, maxwg + maxwg // 10 + 2, n)
    sg = np.where(rng.random(n) < 0.9, sgs[rng.integers(0, len(sgs), n)], 
                  rng.integers(0, 65, n))
    slm_max = info["slm_max_per_work_group"]
    slm = np.where(rng.random(n) < 0.3, 0, rng.integers(0, slm_max + slm_max // 10 + 2, n))
    barrier = rng.random(n) < 0.5
    modes = np.array([m[0] for m in info["grf_modes"]] or [0])
    grf = np.where(rng.random(n) < 0.3, 0, modes[rng.integers(0, len(modes), n)])
    if info["has_register_file"]:
        regs = rng.integers(0, 256, n)
        carveout = np.where(rng.random(n) < 0.7, -1, rng.integers(0, 101, n))
    else:
        regs = np.zeros(n, dtype=np.int64)
        carveout = np.full(n, -1)
    cols = [wg, np.ones(n, np.int64), np.ones(n, np.int64), sg, slm, barrier, grf, regs, carveout]
    return np.stack([np.asarray(c, dtype=np.int64) for c in cols], axis=1)


def ctypes_binding(path):
    """What a user writes by hand today: ctypes over libocc.so, occ.h's
    occ_kernel and occ_residency as ctypes Structures."""
    import ctypes as C

    class Kernel(C.Structure):
        _fields_ = [("struct_size", C.c_uint32), ("wg", C.c_uint32 * 3), ("sub_group", C.c_uint32),
                    ("slm_bytes", C.c_uint64), ("barrier", C.c_bool), ("grf", C.c_uint32),
                    ("regs_per_thread", C.c_uint32), ("carveout_pct", C.c_int32)]

    class Residency(C.Structure):
        _fields_ = [("struct_size", C.c_uint32), ("launchable", C.c_bool), ("reason", C.c_int),
                    ("sub_group", C.c_uint32), ("grf", C.c_uint32), ("wg_size", C.c_uint64),
                    ("contexts_per_wg", C.c_uint32), ("contexts_per_core", C.c_uint32),
                    ("limits", C.c_uint32 * 5), ("limited_by", C.c_uint32),
                    ("resident_wgs", C.c_uint32), ("contexts_used", C.c_uint32),
                    ("contexts_idle", C.c_uint32), ("occupancy", C.c_double),
                    ("slm_per_wg_alloc", C.c_uint64), ("slm_core_config", C.c_uint64),
                    ("regs_per_wg_alloc", C.c_uint32)]

    lib = C.CDLL(path)
    lib.occ_device_open.argtypes = [C.c_char_p, C.POINTER(C.c_void_p), C.c_void_p]
    lib.occ_residency_compute.argtypes = [C.c_void_p, C.POINTER(Kernel), C.POINTER(Residency)]
    return lib, Kernel, Residency


def best_of(rounds, fn, clock=time.thread_time):
    best = float("inf")
    for _ in range(rounds):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
        if best > 2.0:  # a slow form: one round says enough
            break
    return best


def constraint_columns(np, dev, n, rng):
    """Every row a launch bound; half of them a required sub-group size."""
    info = dev.describe()
    max_wg = rng.integers(32, info["max_work_group_size"] + 1, n)
    sgs = np.array(info["sub_group_sizes"])
    reqd_sg = np.where(rng.random(n) < 0.5, 0, sgs[rng.integers(0, len(sgs), n)])
    return max_wg, reqd_sg


def bench_constraints(np, occ, args, rng):
    print("batch without and with the kernel's constraints (M configurations/s, wall time)")
    print(f"{'device':<10} {'plain M/s':>10} {'constrained M/s':>16} {'plain 1 thr':>12} {'constrained 1 thr':>18}")
    for name in args.devices.split(","):
        dev = occ.device(name)
        cfg = random_configs(np, dev, args.n, rng)
        cols = [np.ascontiguousarray(cfg[:, i]) for i in range(9)]
        max_wg, reqd_sg = constraint_columns(np, dev, args.n, rng)
        figures = []
        for threads in (None, 1):
            for extra in ({}, {"max_wg": max_wg, "reqd_sg": reqd_sg}):
                def batch():
                    dev.residency_batch(cols[0], wg_y=cols[1], wg_z=cols[2], sg=cols[3], slm=cols[4],
                                        barrier=cols[5], grf=cols[6], regs=cols[7], carveout=cols[8],
                                        threads=threads, **extra)
                figures.append(args.n / best_of(5, batch, time.perf_counter) / 1e6)
        print(f"{name:<10} {figures[0]:>10.1f} {figures[1]:>16.2f} {figures[2]:>12.1f} {figures[3]:>18.2f}")


def page_cost(np, nbytes, huge):
    """Seconds to map nbytes of fresh anonymous memory, fault every page in by
    writing to it and unmap it: what a batch whose results are kept pays for
    its new block, with transparent huge pages advised or not."""
    import mmap
    t0 = time.perf_counter()
    m = mmap.mmap(-1, nbytes)
    if huge and hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    a = np.frombuffer(m, dtype=np.uint8)
    a[::4096] = 1
    del a
    m.close()
    return time.perf_counter() - t0


def bench_kept(np, occ, args, rng):
    print("batch whose results are kept (every call a fresh result block), one thread, wall time;")
    print("a fresh block of the same size faulted in with 4 KB pages and with huge pages advised, alternated")
    print(f"{'device':<10} {'dropped M/s':>12} {'kept M/s':>9} {'block MB':>9} {'4 KB pages ns':>14} "
          f"{'huge pages ns':>14}")
    for name in args.devices.split(","):
        dev = occ.device(name)
        cfg = random_configs(np, dev, args.n, rng)
        cols = [np.ascontiguousarray(cfg[:, i]) for i in range(9)]

        def batch():
            return dev.residency_batch(cols[0], wg_y=cols[1], wg_z=cols[2], sg=cols[3], slm=cols[4],
                                       barrier=cols[5], grf=cols[6], regs=cols[7], carveout=cols[8],
                                       threads=1)
        dropped = args.n / best_of(5, batch, time.perf_counter) / 1e6
        kept = [batch()]  # takes the block the dropped runs left for reuse
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            kept.append(batch())
            best = min(best, time.perf_counter() - t0)
        r = kept[-1]
        nbytes = sum(getattr(r, f).nbytes for f in ("resident_wgs", "occupancy", "limited_by", "reason",
                                                     "contexts_per_wg", "contexts_per_core"))
        del kept
        small = min(page_cost(np, nbytes, False) for _ in range(5))
        huge = min(page_cost(np, nbytes, True) for _ in range(5))
        print(f"{name:<10} {dropped:>12.1f} {args.n / best / 1e6:>9.1f} {nbytes / 2**20:>9.1f} "
              f"{small / args.n * 1e9:>14.2f} {huge / args.n * 1e9:>14.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pythonpath", help="directory holding the built occ package")
    ap.add_argument("--reference", help="the occ_reference program (C figures)")
    ap.add_argument("--libocc", help="libocc.so, for the hand-written ctypes reference")
    ap.add_argument("--n", type=int, default=1_000_000, help="configurations per device (batch)")
    ap.add_argument("--scalar-n", type=int, default=100_000, help="configurations per device (scalar)")
    ap.add_argument("--devices", default="tgl,arc-a770,h100-sxm")
    ap.add_argument("--kept", action="store_true",
                    help="only the batch with its results kept, and what a fresh block's pages cost")
    ap.add_argument("--constraints", action="store_true",
                    help="only the batch, without and with the kernel's constraints")
    args = ap.parse_args()
    if args.pythonpath:
        sys.path.insert(0, args.pythonpath)
    import numpy as np
    import occ

    print(f"occ {occ.__version__} Python benchmark, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"machine: {machine()}")
    threads = occ._api._usable_cpus()
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, occ from {os.path.dirname(occ.__file__)}")
    print()
    if args.constraints:
        bench_constraints(np, occ, args, np.random.default_rng(12345))
        return
    if args.kept:
        bench_kept(np, occ, args, np.random.default_rng(12345))
        return
    print(f"batch: {threads} threads (the CPUs this process may use)")
    hdr = (f"{'device':<10} {'batch M/s':>10} {'batch ns':>9} {'1 thread M/s':>13} {'1 thr cpu M/s':>14} "
           f"{'C batch ns':>11} {'C columns ns':>13} "
           f"{'scalar ns':>10} {'loop ns':>8} {'C one ns':>9} {'overhead ns':>12} {'ctypes ns':>10}")
    print(hdr)
    rng = np.random.default_rng(12345)
    for name in args.devices.split(","):
        dev = occ.device(name)
        cfg = random_configs(np, dev, args.n, rng)
        cols = [np.ascontiguousarray(cfg[:, i]) for i in range(9)]
        def batch(threads):
            return lambda: dev.residency_batch(
                cols[0], wg_y=cols[1], wg_z=cols[2], sg=cols[3], slm=cols[4], barrier=cols[5],
                grf=cols[6], regs=cols[7], carveout=cols[8], threads=threads)
        # wall time: the batch's threads work while this one waits
        ns_batch = best_of(5, batch(None), time.perf_counter) / args.n * 1e9
        ns_batch1 = best_of(5, batch(1), time.perf_counter) / args.n * 1e9
        # one thread's CPU time: what the batch costs, whatever else shares the machine
        cpu_batch1 = best_of(5, batch(1), time.thread_time) / args.n * 1e9

        m = min(args.scalar_n, args.n)
        rows = [tuple(int(x) for x in r) for r in cfg[:m]]
        res = dev.residency

        def scalar():
            for wg, _, _, sg, slm, barrier, grf, regs, carveout in rows:
                res(wg, sg=sg, slm=slm, barrier=barrier, grf=grf, regs=regs, carveout=carveout)
        ns_scalar = best_of(5, scalar) / m * 1e9

        def empty_loop():
            for wg, _, _, sg, slm, barrier, grf, regs, carveout in rows:
                pass
        ns_loop = best_of(5, empty_loop) / m * 1e9

        ns_ctypes = float("nan")
        if args.libocc:
            import ctypes as C
            lib, Kernel, Res = ctypes_binding(args.libocc)
            handle = C.c_void_p()
            diag = C.create_string_buffer(1024)
            assert lib.occ_device_open(name.encode(), C.byref(handle), diag) == 0

            def with_ctypes():
                compute = lib.occ_residency_compute
                for wg, wgy, wgz, sg, slm, barrier, grf, regs, carveout in rows:
                    k = Kernel(C.sizeof(Kernel), (wg, wgy, wgz), sg, slm, barrier, grf, regs,
                               carveout)
                    r = Res()
                    r.struct_size = C.sizeof(Res)
                    compute(handle, k, r)
                    r.resident_wgs, r.occupancy
            ns_ctypes = best_of(5, with_ctypes) / m * 1e9
            lib.occ_device_free.argtypes = [C.c_void_p]
            lib.occ_device_free(handle)

        c_one = c_batch = c_columns = float("nan")
        if args.reference:
            with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
                f.write(cfg.astype("<i8").tobytes())
                path = f.name
            try:
                out = subprocess.run([args.reference, "bench", name, path], capture_output=True,
                                     text=True, check=True).stdout.split()
                c_one, c_batch, c_columns = float(out[0]), float(out[1]), float(out[2])
            finally:
                os.unlink(path)
        print(f"{name:<10} {1e3 / ns_batch:>10.1f} {ns_batch:>9.1f} {1e3 / ns_batch1:>13.1f} {1e3 / cpu_batch1:>14.1f} "
              f"{c_batch:>11.1f} {c_columns:>13.1f} "
              f"{ns_scalar:>10.0f} {ns_loop:>8.0f} {c_one:>9.1f} {ns_scalar - ns_loop - c_one:>12.0f} {ns_ctypes:>10.0f}")
    print()
    print("batch: Device.residency_batch over int64 arrays (one call, wall time; 1 thread: threads=1, "
          "wall time and the thread's CPU time); "
          "scalar: Device.residency "
          "in a Python for loop;\nloop: the same loop without the call; C: occ_reference bench, "
          "same configurations, same run;\noverhead = scalar - loop - C one: what the binding "
          "adds to the C call;\nctypes: the same loop through a hand-written ctypes binding of "
          "libocc.so (the reference: what a user wrote before this package).")


if __name__ == "__main__":
    main()
