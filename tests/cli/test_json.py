#!/usr/bin/env python3
"""occcalc --json, parsed and checked key by key (suite 'cli').

    test_json.py OCCCALC

Expected values are computed here from the seed chapter's figures
(oneAPI GPU Optimization Guide, "Thread Mapping and GPU Occupancy": Tiger
Lake, 6 Xe-cores x 112 thread contexts, maximum work-group 512) and CUDA's
rule for H100 (cuda_occupancy.h; docs/sources.md),
not copied from occcalc's output.  Every document must carry
"schema": "occ/1" and use the C locale's decimal point.
"""
import json
import os
import subprocess
import sys

TGL_CORES, TGL_CONTEXTS_PER_CORE = 6, 112
TGL_CONTEXTS = TGL_CORES * TGL_CONTEXTS_PER_CORE  # 672
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def near(a, b, tol=1e-9):
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= tol


def run(occcalc, args, expect_rc=0, env=None):
    """Run occcalc, check the exit code and the schema; return the parsed
    document (or the list of documents for JSON Lines)."""
    e = dict(os.environ, LC_ALL="C")
    if env:
        e.update(env)
    p = subprocess.run([occcalc] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=e)
    name = "occcalc " + " ".join(args)
    out = p.stdout.decode("utf-8")
    check(p.returncode == expect_rc, "%s: exit %d, expected %d (stderr: %s)"
          % (name, p.returncode, expect_rc, p.stderr.decode("utf-8", "replace").strip()))
    try:
        docs = [json.loads(out)]
    except ValueError:
        try:  # JSON Lines (occcalc sweep): one document per line
            docs = [json.loads(line) for line in out.splitlines() if line.strip()]
        except ValueError as err:
            check(False, "%s: stdout is not JSON: %s" % (name, err))
            return None
    check(len(docs) > 0, "%s: no JSON document" % name)
    for d in docs:
        check(isinstance(d, dict) and d.get("schema") == "occ/1",
              "%s: schema is %r, expected 'occ/1'" % (name, d.get("schema") if isinstance(d, dict) else d))
    return docs[0] if len(docs) == 1 else docs


def expect(doc, path, want, name, tol=1e-9):
    """doc["a"]["b"] == want (numbers: within tol; want may be a callable)."""
    node = doc
    for key in path.split("."):
        if not check(isinstance(node, dict) and key in node, "%s: no key %s" % (name, path)):
            return None
        node = node[key]
    if callable(want):
        check(want(node), "%s: %s = %r fails its check" % (name, path, node))
    elif isinstance(want, float):
        check(near(node, want, tol), "%s: %s = %r, expected %.10g" % (name, path, node, want))
    else:
        # bool and int are distinct here: True must not pass for 1
        check(node == want and type(node) is type(want),
              "%s: %s = %r, expected %r" % (name, path, node, want))
    return node


def core_limits(doc, name, **want):
    """core.limits: resource -> work-groups per core, None = not a limit."""
    limits = expect(doc, "core.limits", lambda v: isinstance(v, dict), name)
    if limits is None:
        return
    check(sorted(limits) == sorted(["threads", "slm", "registers", "work_group_slots", "barriers"]),
          "%s: core.limits keys %s" % (name, sorted(limits)))
    for k, v in want.items():
        check(limits.get(k, "missing") == v, "%s: core.limits.%s = %r, expected %r"
              % (name, k, limits.get(k, "missing"), v))


def seed_example(occ):
    # VectorAdd3<8, 320, 8>: ceil(320 / 8) = 40 contexts per work-group,
    # floor(112 / 40) = 2 per Xe-core, 80 / 112 busy; 8 work-groups = 320
    # contexts of 672, one wave (capacity 6 x 2 = 12).
    name = "seed example"
    d = run(occ, ["--wg", "320", "--sg", "8", "--groups", "8", "--json"])
    if not isinstance(d, dict):
        return
    expect(d, "device.name", "tgl", name)
    expect(d, "device.cores", TGL_CORES, name)
    expect(d, "kernel.work_group", [320, 1, 1], name)
    expect(d, "kernel.work_group_size", 320, name)
    expect(d, "kernel.sub_group", 8, name)
    expect(d, "kernel.barrier", False, name)
    expect(d, "launchable", True, name)
    expect(d, "reason", None, name)
    expect(d, "core.thread_contexts_per_work_group", 40, name)
    expect(d, "core.thread_contexts", TGL_CONTEXTS_PER_CORE, name)
    expect(d, "core.resident_work_groups", 2, name)
    expect(d, "core.thread_contexts_used", 80, name)
    expect(d, "core.thread_contexts_idle", 32, name)
    expect(d, "core.occupancy", 80 / 112, name)  # 0.714...
    core_limits(d, name, threads=2, slm=None, registers=None, barriers=None)
    expect(d, "core.limited_by", ["threads"], name)
    expect(d, "gpu.work_groups", 8, name)
    expect(d, "gpu.thread_contexts_needed", 320, name)
    expect(d, "gpu.thread_contexts", TGL_CONTEXTS, name)
    expect(d, "gpu.wave_capacity", 12, name)
    expect(d, "gpu.waves", 1, name)
    expect(d, "gpu.full_waves", 0, name)
    expect(d, "gpu.wave_occupancy", lambda v: len(v) == 1 and near(v[0], 320 / 672), name)
    expect(d, "gpu.last_wave_work_groups", 8, name)
    expect(d, "gpu.average_occupancy", 320 / 672, name)  # 0.476...
    # Intel's calculator: less than one wave counts its share of a full wave: 8/12 x 71.4 %
    expect(d, "gpu.intel_calculator_occupancy", lambda v: near(v, 320 / 672), name)
    # The same document in another locale: numbers keep the C decimal point.
    d2 = run(occ, ["--wg", "320", "--sg", "8", "--groups", "8", "--json"],
             env={"LC_ALL": "C.UTF-8", "LANG": "de_DE.UTF-8"})
    check(d2 == d, "seed example: the JSON differs under LC_ALL=C.UTF-8")


def vectoradd2(occ):
    # WG 512, SIMD 32: 16 threads per work-group, 7 per Xe-core, 42 per wave.
    for groups in (1, 42, 44, 48):
        name = "VectorAdd2<%d>" % groups
        d = run(occ, ["--wg", "512", "--sg", "32", "--groups", str(groups), "--json"])
        if not isinstance(d, dict):
            continue
        expect(d, "core.thread_contexts_per_work_group", 16, name)
        expect(d, "core.resident_work_groups", 7, name)
        expect(d, "core.occupancy", 1.0, name)
        expect(d, "gpu.thread_contexts_needed", 16 * groups, name)
        full, last = divmod(groups, 42)
        waves = full + (1 if last else 0)
        expect(d, "gpu.waves", waves, name)
        expect(d, "gpu.full_waves", full, name)
        per_wave = [1.0] * full + ([16 * last / 672] if last else [])
        expect(d, "gpu.wave_occupancy",
               lambda v: len(v) == len(per_wave) and all(near(a, b) for a, b in zip(v, per_wave)), name)
        # seed: <44> "100% then 4.7%" (32/672), <48> "100% then 14.3%" (96/672)
        expect(d, "gpu.average_occupancy", sum(per_wave) / waves, name)
        # Intel's calculator: occupancy x full / (full + 1) when a partial wave follows
        # full ones; less than one wave counts its share of a full one
        calc = groups / 42 if full == 0 else (1.0 * full / (full + 1) if last else 1.0)
        expect(d, "gpu.intel_calculator_occupancy", calc, name)


def vectoradd1(occ):
    # The seed's table: 53760 work-groups of 512 = 27.5M work-items (its code's
    # array_size, 3*5*7*2^17, is half that; the table is what we check).
    name = "VectorAdd1"
    d = run(occ, ["--global", str(53760 * 512), "--wg", "512", "--sg", "32", "--json"])
    if isinstance(d, dict):
        expect(d, "gpu.work_groups", 53760, name)
        expect(d, "gpu.thread_contexts_needed", 860160, name)  # "860K"
        expect(d, "gpu.waves", 53760 // 42, name)
        expect(d, "gpu.average_occupancy", 1.0, name)


def r_table(occ):
    # Local range (1, R, 128), sub-group 8, barrier: 16R threads per work-group.
    for R, resident in ((1, 7), (2, 3), (3, 2), (4, 1)):
        name = "R=%d" % R
        d = run(occ, ["--wg", "1,%d,128" % R, "--sg", "8", "--barrier", "--json"])
        if not isinstance(d, dict):
            continue
        expect(d, "kernel.work_group", [1, R, 128], name)
        expect(d, "kernel.barrier", True, name)
        expect(d, "core.thread_contexts_per_work_group", 16 * R, name)
        expect(d, "core.resident_work_groups", resident, name)
        expect(d, "core.occupancy", 16 * R * resident / 112, name)
        core_limits(d, name, threads=resident, barriers=64)
        expect(d, "core.limited_by", ["threads"], name)
        check("gpu" not in d, "%s: a gpu part without --groups/--global" % name)
    name = "R=5"
    d = run(occ, ["--wg", "1,5,128", "--sg", "8", "--barrier", "--json"], expect_rc=1)
    if isinstance(d, dict):
        expect(d, "launchable", False, name)
        expect(d, "reason", lambda v: isinstance(v, str) and "640" in v and "512" in v, name)
        expect(d, "core.resident_work_groups", 0, name)


def ties(occ):
    # ceil(224 / 8) = 28 contexts: 112 / 28 = 4; SLM 64 KB / 16 KB = 4: both bind.
    name = "tie"
    d = run(occ, ["--wg", "224", "--sg", "8", "--slm", "16K", "--json"])
    if isinstance(d, dict):
        core_limits(d, name, threads=4, slm=4)
        expect(d, "core.limited_by", lambda v: sorted(v) == ["slm", "threads"], name)
        expect(d, "core.occupancy", 1.0, name)
        expect(d, "core.slm_per_work_group_allocated", 16384, name)


def h100(occ):
    # 98 registers x 32 = 3136 -> 3328 per warp; 16384 / 3328 = 4 warps per
    # sub-partition, 16 per SM: 16 one-warp blocks, 16 / 64 warps.
    name = "H100 regs 98"
    d = run(occ, ["-d", "h100-sxm", "--wg", "32", "--regs", "98", "--json"])
    if isinstance(d, dict):
        expect(d, "device.vendor", "nvidia", name)
        expect(d, "kernel.registers_per_thread", 98, name)
        expect(d, "core.thread_contexts", 64, name)
        expect(d, "core.resident_work_groups", 16, name)
        expect(d, "core.occupancy", 0.25, name)
        # shared memory: 1 KB reserved per block in 228 KB; 32 block slots
        core_limits(d, name, threads=64, slm=228, registers=16, work_group_slots=32, barriers=None)
        expect(d, "core.limited_by", ["registers"], name)
        expect(d, "next_steps", lambda v: len(v) > 0 and v[0]["input"] == "registers"
               and v[0]["value"] == 96 and v[0]["at_most"] is True, name)
    # 9 KB + 1 KB reserved = 10 KB per block: 228 / 10 = 22; carveout 0 gives
    # the smallest legal size holding one block, 16 KB: 1 block.
    for extra, resident, smem in (([], 22, 228 * 1024), (["--carveout", "0"], 1, 16 * 1024)):
        name = "H100 slm 9K " + " ".join(extra)
        d = run(occ, ["-d", "h100-sxm", "--wg", "32", "--slm", "9K", "--json"] + extra)
        if isinstance(d, dict):
            expect(d, "core.resident_work_groups", resident, name)
            expect(d, "core.slm_per_work_group_allocated", 10240, name)
            expect(d, "core.slm_per_core", smem, name)
            expect(d, "core.limited_by", ["slm"], name)
            expect(d, "kernel.carveout_pct", 0 if extra else None, name)


def cannot_launch(occ):
    name = "--wg 513"
    d = run(occ, ["--wg", "513", "--groups", "4", "--json"], expect_rc=1)
    if isinstance(d, dict):
        expect(d, "launchable", False, name)
        expect(d, "reason", lambda v: isinstance(v, str) and "513" in v, name)
        expect(d, "core.resident_work_groups", 0, name)
        expect(d, "core.limited_by", [], name)
        check("gpu" not in d, "%s: a gpu part for a kernel that cannot launch" % name)


def devices(occ):
    name = "devices"
    d = run(occ, ["devices", "--json"])
    if not isinstance(d, dict):
        return
    devs = expect(d, "devices", lambda v: isinstance(v, list) and len(v) > 0, name) or []
    names = [x.get("name") for x in devs]
    check(len(set(names)) == len(names), "devices: names repeat: %s" % names)
    check(names[:1] == ["tgl"], "devices: the default device tgl is not first: %s" % names[:3])
    for want in ("tgl", "h100-sxm", "a100", "v100"):
        check(want in names, "devices: %s missing" % want)
    for x in devs:
        for key in ("name", "vendor", "product", "core_name", "cores", "thread_contexts", "provisional"):
            check(key in x, "devices: %s lacks %s" % (x.get("name"), key))
    by = {x.get("name"): x for x in devs}
    if "tgl" in by:
        check(by["tgl"].get("thread_contexts") == TGL_CONTEXTS, "devices: tgl thread_contexts")
        check(by["tgl"].get("cores") == TGL_CORES, "devices: tgl cores")
    if "h100-sxm" in by:
        check(by["h100-sxm"].get("thread_contexts") == 132 * 64, "devices: h100-sxm thread_contexts")


def other_commands(occ):
    """Every command's JSON carries the schema; commands this build lacks are skipped."""
    seed = ["--wg", "320", "--sg", "8"]
    for cmd, args in (("phases", seed + ["--groups", "8"]),
                      ("advise", ["--global", "27525120"]),
                      ("sweep", seed),
                      ("limits", seed)):
        probe = subprocess.run([occ, cmd, "--help"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C"))
        if probe.returncode != 0:
            print("skip: occcalc %s is not in this build" % cmd)
            continue
        run(occ, [cmd] + args + ["--json"])


def main():
    if len(sys.argv) != 2:
        print("usage: test_json.py OCCCALC", file=sys.stderr)
        return 2
    occ = os.path.abspath(sys.argv[1])
    for t in (seed_example, vectoradd2, vectoradd1, r_table, ties, h100, cannot_launch, devices,
              other_commands):
        before = len(FAILS)
        t(occ)
        print("%s %s" % ("ok  " if len(FAILS) == before else "FAIL", t.__name__))
    for f in FAILS:
        print("  " + f)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
