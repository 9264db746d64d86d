#!/usr/bin/env python3
"""occcalc --json, parsed and checked key by key (suite 'cli').

    test_json.py OCCCALC

Expected values are computed here from the seed chapter's figures
(oneAPI GPU Optimization Guide, "Thread Mapping and GPU Occupancy": Tiger
Lake, 6 Xe-cores x 112 thread contexts, maximum work-group 512) and CUDA's
rule for H100 (cuda_occupancy.h; docs/sources.md),
not copied from occcalc's output.  Every document must carry
"schema": "occ/1" and use the C locale's decimal point.

Every output is also validated against the JSON Schemas shipped in
docs/schema/ (occ-1, occ-trace-1; draft 2020-12, python3-jsonschema): the
documents this test makes, each line of --jsonl, the JSON golden outputs of
tests/cli, and the trace reports of the recorded runs in tests/data/trace.
"""
import atexit
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

try:
    import jsonschema
except ImportError:  # a failure, not a skip: the README's apt line installs it
    jsonschema = None


def source_root():
    d = os.path.dirname(os.path.abspath(__file__))
    while not os.path.isdir(os.path.join(d, "docs", "schema")):
        parent = os.path.dirname(d)
        if parent == d:
            raise SystemExit("test_json.py: no docs/schema above " + __file__)
        d = parent
    return d


ROOT = source_root()
VALIDATORS = {}
if jsonschema:
    for name in ("occ/1", "occ-trace/1"):
        path = os.path.join(ROOT, "docs", "schema", name.replace("/", "-") + ".schema.json")
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        VALIDATORS[name] = jsonschema.Draft202012Validator(schema)

TGL_CORES, TGL_CONTEXTS_PER_CORE = 6, 112
TGL_CONTEXTS = TGL_CORES * TGL_CONTEXTS_PER_CORE  # 672
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def near(a, b, tol=1e-9):
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= tol


def valid(doc, what, schema="occ/1"):
    """doc follows the shipped JSON Schema."""
    if not check(jsonschema is not None, "python3-jsonschema is not installed (README's apt line)"):
        return False
    errors = list(VALIDATORS[schema].iter_errors(doc))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        return check(False, "%s: not %s: %s at %s" % (what, schema, best.message[:300],
                                                     "/".join(str(p) for p in best.absolute_path)))
    return True


def decode(raw, what):
    """Output is valid UTF-8, always."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        check(False, "%s: output is not UTF-8: %s" % (what, err))
        return raw.decode("utf-8", "replace")


def run(occcalc, args, expect_rc=0, env=None):
    """Run occcalc, check the exit code, the schema and its JSON Schema;
    return the parsed document (or the list of lines for --jsonl)."""
    e = dict(os.environ, LC_ALL="C")
    if env:
        e.update(env)
    p = subprocess.run([occcalc] + args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=e)
    name = "occcalc " + " ".join(args)
    out = decode(p.stdout, name)
    check(p.returncode == expect_rc, "%s: exit %d, expected %d (stderr: %s)"
          % (name, p.returncode, expect_rc, p.stderr.decode("utf-8", "replace").strip()))
    lines = "--jsonl" in args
    try:
        # --json is one document, whatever the command; --jsonl one per line
        docs = [json.loads(line) for line in out.splitlines()] if lines else [json.loads(out)]
    except ValueError as err:
        check(False, "%s: stdout is not %s: %s" % (name, "JSON Lines" if lines else "one JSON document", err))
        return None
    check(len(docs) > 0, "%s: no JSON document" % name)
    for i, d in enumerate(docs):
        check(isinstance(d, dict) and d.get("schema") == "occ/1",
              "%s: schema is %r, expected 'occ/1'" % (name, d.get("schema") if isinstance(d, dict) else d))
        valid(d, "%s%s" % (name, " line %d" % (i + 1) if lines else ""))
    return docs if lines else docs[0]


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
    expect(d, "gpu.waves_average_occupancy", 320 / 672, name)  # 0.476...
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
        expect(d, "gpu.waves_average_occupancy", sum(per_wave) / waves, name)
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
        expect(d, "gpu.waves_average_occupancy", 1.0, name)


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


H200_GPCS = [18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2]  # devices/h200.yaml, measured


def h200_clusters(occ):
    # 1024 threads x 64 registers: 1 block per SM by registers.  Clusters of
    # 2x2 = 4 blocks on distinct SMs of one GPC: floor(G / 4) per GPC of 4 SMs
    # or more.  4000 blocks = 1000 clusters in waves of that many.
    active = sum(g // 4 for g in H200_GPCS if g >= 4)  # 4+4+4*5+2 = 30
    name = "H200 clusters 2x2"
    d = run(occ, ["-d", "h200", "--wg", "1024", "--regs", "64", "--cluster", "2,2", "--groups", "4000",
                  "--json"])
    if isinstance(d, dict):
        expect(d, "clusters.dims", [2, 2, 1], name)
        expect(d, "clusters.size", 4, name)
        expect(d, "clusters.work_groups_per_core", 1, name)
        expect(d, "clusters.contexts_used", 32, name)  # one block of 32 warps: the cap does not bind
        expect(d, "clusters.occupancy", d["core"]["occupancy"], name)
        expect(d, "clusters.max_active_clusters", active, name)
        expect(d, "clusters.cores_used", sum(g for g in H200_GPCS if g >= 4), name)
        expect(d, "clusters.max_potential_size", 8, name)
        expect(d, "gpu.max_active_clusters", active, name)
        expect(d, "gpu.wave_capacity", active * 4, name)
        expect(d, "gpu.waves", -(-1000 // active), name)
        # the simulator places clusters: 33 full waves of 120 blocks, then 40 (equal durations)
        expect(d, "phases", lambda p: [(x["start"], x["end"], x["work_groups"]) for x in p]
               == [(0, 33, 120), (33, 34, 40)], name)
        expect(d, "timeline.phases_average_occupancy", d["gpu"]["waves_average_occupancy"], name)
    # 32-thread blocks: 32 fit an SM, a cluster launch holds 8; 16 non-portable
    name = "H200 clusters of 16"
    d = run(occ, ["-d", "h200", "--wg", "32", "--cluster", "16", "--cluster-non-portable", "--json"])
    if isinstance(d, dict):
        expect(d, "core.resident_work_groups", 32, name)
        expect(d, "clusters.work_groups_per_core", 8, name)
        # one warp each: 8 of an SM's 64 warps busy in the cluster launch (the SM holds 32: 50 %)
        expect(d, "clusters.contexts_used", 8, name)
        expect(d, "clusters.occupancy", 8 / 64, name)
        expect(d, "core.occupancy", 32 / 64, name)
        # the step: larger blocks, the smallest whose 8 per SM fill it: 8 warps, 256 threads
        expect(d, "next_steps", lambda s: [(x["input"], x["value"], x["at_most"], x["occupancy"]) for x in s][:1]
               == [("work_group_size", 256, False, 1.0)], name)
        expect(d, "clusters.max_active_clusters", sum(g * 8 // 16 for g in H200_GPCS if g >= 16), name)
        expect(d, "clusters.max_potential_size", 16, name)
    # sweep and limits in clusters: 32-thread blocks, 32 per SM, 8 in a cluster launch (1 warp each)
    name = "H200 sweep in clusters"
    d = run(occ, ["sweep", "-d", "h200", "--over", "wg", "--from", "32", "--to", "64", "--step", "32",
                  "--cluster", "2", "--json"])
    if isinstance(d, dict):
        expect(d, "points", lambda p: [(x["resident_work_groups"], x["occupancy"], x["cluster_occupancy"])
                                       for x in p] == [(32, 0.5, 8 / 64), (32, 1.0, 16 / 64)], name)
    name = "H200 limits in clusters"
    d = run(occ, ["limits", "-d", "h200", "--wg", "32", "--by", "slm", "--cluster", "2", "--json"])
    if isinstance(d, dict):
        expect(d, "limits.slm", lambda rows: len(rows) > 1 and all(abs(r["cluster_occupancy_max"] - min(r["resident_work_groups"], 8) / 64)
                                          < 1e-12 for r in rows if r["resident_work_groups"]), name)
    # advise ranks the sizes for its best configuration (1024 x 64 registers: 1 block per SM)
    name = "advise --cluster"
    d = run(occ, ["advise", "-d", "h200", "--global", "65536", "--regs", "64", "--cluster", "4", "--top", "1",
                  "--json"])
    if isinstance(d, dict):
        sizes = d.get("cluster_sizes", {}).get("sizes", [])
        got = [(s["size"], s["work_groups"]) for s in sizes]
        want = sorted(((c, c * sum(g // c for g in H200_GPCS if g >= c)) for c in range(1, 9)),
                      key=lambda x: (-x[1], -x[0]))
        check(got == want, "%s: sizes %r, expected %r" % (name, got, want))
        expect(d, "cluster_sizes.cluster", [4, 1, 1], name)
    name = "limits --cluster"
    d = run(occ, ["limits", "-d", "h200", "--wg", "256", "--regs", "32", "--cluster", "4", "--by", "slm", "--json"])
    if isinstance(d, dict):
        runs = d.get("limits", {}).get("slm", [])
        check(runs and all(r["max_active_clusters"] == sum(g * min(r["resident_work_groups"], 8) // 4
                                                           for g in H200_GPCS if g >= 4) for r in runs),
              "%s: %r" % (name, runs))
    name = "sweep --cluster"
    d = run(occ, ["sweep", "-d", "h200", "--over", "wg", "--regs", "64", "--cluster", "4", "--groups", "4000",
                  "--from", "256", "--to", "1024", "--step", "256", "--json"])
    if isinstance(d, dict):
        for pt in d.get("points", []):
            act = sum(g * min(pt["resident_work_groups"], 8) // 4 for g in H200_GPCS if g >= 4)
            check(pt["max_active_clusters"] == act and pt["waves"] == -(-1000 // act),
                  "%s: %r, expected %d clusters" % (name, pt, act))
    # refusals: over the portable maximum (usage), a profile without GPCs (input)
    for args, rc, words in ((["-d", "h200", "--cluster", "9"], 2, "portable maximum of 8"),
                            (["-d", "h100-sxm", "--cluster", "2"], 3, "no GPC data")):
        p = subprocess.run([occ, "--wg", "32", "--json"] + args, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        check(p.returncode == rc and p.stdout == b"" and words in p.stderr.decode(),
              "occcalc %s: exit %d, stdout %r, stderr %r" % (" ".join(args), p.returncode, p.stdout, p.stderr))


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


SEED = ["--wg", "320", "--sg", "8"]
REPLAY = os.path.join("tests", "data", "cuda", "dispatch", "replay", "d058-wg32-rmin-s0-nobar-100us-g60000.rec")


def cluster_record():
    """One launch in clusters recorded on an H200, out of its tarball (removed at exit)."""
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    tar = os.path.join(ROOT, "tests", "data", "cuda", "clusters", "validate-h200-2026-11-28", "records.tar.xz")
    with tarfile.open(tar) as t:
        t.extract("records/wg256-slm0-c4x2x2.rec", tmp)
    return os.path.join(tmp, "records", "wg256-slm0-c4x2x2.rec")


CLUSTER_REPLAY = cluster_record()
# (command line, the document's table or None): one of each command
COMMANDS = (
    (SEED + ["--groups", "8"], None),
    (["devices"], "devices"),
    (["phases"] + SEED + ["--groups", "8", "--lanes"], "phases"),
    (["advise", "--global", "27525120"], "configurations"),
    (["sweep", "-d", "h100-sxm", "--over", "regs", "--wg", "256", "--groups", "1000"], "points"),
    (["limits"] + SEED, None),
    (["kernels", os.path.join("tests", "kernels", "intel", "kernels_tgllp.zebin")], "kernels"),
    # kernels without a device model (AMD): their resources, device null
    (["kernels", os.path.join("tests", "data", "kernels", "amd", "hip_bundle.ccob")], "kernels"),
    (["validate", "--replay", REPLAY], None),
    (["validate", "--replay", CLUSTER_REPLAY], None),
    (["batch", os.path.join("tests", "cli", "data", "batch-seed.csv")], "results"),
    # a product with ESC, a newline and U+00FF: quoted in CSV, escaped in JSON
    (["--device", os.path.join("tests", "cli", "data", "control-chars.yaml")] + SEED, None),
)


def cell(v):
    """A JSON value as the CSV renderer writes it (docs/cli.md)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "|".join(cell(x) for x in v)
    return str(v)


def flatten(v, path=""):
    """{column: cell} as docs/cli.md says the CSV renderer names them."""
    scalar = lambda x: not isinstance(x, (dict, list))
    if scalar(v) or (isinstance(v, list) and all(scalar(x) for x in v)):
        return {path: cell(v)}
    items = v.items() if isinstance(v, dict) else ((str(i), x) for i, x in enumerate(v))
    out = {}
    for k, x in items:
        out.update(flatten(x, path + "." + k if path else k))
    return out


def same_cell(got, want):
    if got == want:
        return True
    try:  # numbers: %.10g against Python's repr
        return abs(float(got) - float(want)) <= 1e-9 * max(1.0, abs(float(want)))
    except ValueError:
        return False


def every_format(occ):
    """--json, --jsonl and --csv of one result agree: the lines are the table's
    rows with the document's other members, the CSV rows the table's rows."""
    for args, table in COMMANDS:
        name = "occcalc " + " ".join(args)
        rc = 0
        doc = run(occ, args + ["--json"], expect_rc=rc)
        lines = run(occ, args + ["--jsonl"], expect_rc=rc)
        p = subprocess.run([occ] + args + ["--csv"], capture_output=True, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, LC_ALL="C"), cwd=ROOT)
        check(p.returncode == rc, "%s --csv: exit %d" % (name, p.returncode))
        rows = list(csv.reader(io.StringIO(decode(p.stdout, name + " --csv"))))
        if not isinstance(doc, dict) or not lines or not rows:
            check(False, "%s: an output is missing" % name)
            continue
        header, body = rows[0], rows[1:]
        check(len(set(header)) == len(header), "%s --csv: columns repeat" % name)
        check(all(len(r) == len(header) for r in body), "%s --csv: ragged rows" % name)
        if table is None:
            check(lines == [doc], "%s --jsonl: not the document on one line" % name)
            check(len(body) == 1, "%s --csv: %d rows, expected the document as one" % (name, len(body)))
            want = flatten(doc)
            check(header == list(want), "%s --csv: columns %s, expected %s" % (name, header[:8], list(want)[:8]))
            for k, c in zip(header, body[0] if body else []):
                check(same_cell(c, want.get(k)), "%s --csv: %s = %r, the JSON says %r" % (name, k, c, want.get(k)))
            continue
        rowsj = doc[table]
        check(len(lines) == len(rowsj) and len(body) == len(rowsj),
              "%s: %d rows, %d lines, %d CSV rows" % (name, len(rowsj), len(lines), len(body)))
        head = {k: v for k, v in doc.items() if not isinstance(v, list)}
        for i, (row, line) in enumerate(zip(rowsj, lines)):
            check(line == dict(head, **row), "%s --jsonl line %d: not the document's members and row %d"
                  % (name, i + 1, i + 1))
        for row, cells in zip(rowsj, body):
            for k, want in flatten(row).items():
                got = cells[header.index(k)] if k in header else None
                check(got is not None and same_cell(got, want),
                      "%s --csv: %s = %r, the JSON says %r" % (name, k, got, want))


def golden_outputs(occ):
    """The JSON outputs of tests/cli's golden cases follow the schema too."""
    cases = os.path.join(ROOT, "tests", "cli", "cases")
    seen = 0
    for args_file in sorted(glob.glob(os.path.join(cases, "*.args"))):
        args = [l.rstrip("\n") for l in open(args_file, encoding="utf-8") if not l.startswith("#")]
        jsonl = "--jsonl" in args
        if not (jsonl or "--json" in args or "-j" in args):
            continue
        out = os.path.join(cases, "..", "golden", os.path.basename(args_file)[:-5] + ".out")
        text = decode(open(out, "rb").read(), out)
        if not text.strip():
            continue  # a usage error: nothing on stdout
        seen += 1
        for i, line in enumerate(text.splitlines() if jsonl else [text]):
            valid(json.loads(line), "%s%s" % (os.path.relpath(out, ROOT), " line %d" % (i + 1) if jsonl else ""))
    check(seen >= 5, "golden outputs: only %d JSON goldens found" % seen)


def trace_reports(occ):
    """occcalc trace --replay of every recorded run: occ-trace/1."""
    runs = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "trace", "*", "records")))
    check(len(runs) > 0, "trace: no recorded runs in tests/data/trace")
    with tempfile.TemporaryDirectory() as tmp:
        for records in runs:
            for extra in ([], ["--launches"]):
                out = os.path.join(tmp, "trace.json")
                p = subprocess.run([occ, "trace", "--replay", records, "--json", "-o", out] + extra,
                                   capture_output=True, stdin=subprocess.DEVNULL)
                what = "trace --replay %s %s" % (os.path.relpath(records, ROOT), " ".join(extra))
                if check(p.returncode == 0, "%s: exit %d" % (what, p.returncode)):
                    valid(json.loads(decode(open(out, "rb").read(), what)), what, "occ-trace/1")


def names_not_utf8(occ):
    """A kernel name with byte 0xff (not UTF-8): the JSON is valid UTF-8 and
    shows the byte as its Latin-1 character, U+00FF (docs/cli.md)."""
    cubin = open(os.path.join(ROOT, "tests", "data", "kernels", "nvidia", "kernels_sm90.cubin"), "rb").read()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "latin1.cubin")
        with open(path, "wb") as f:
            f.write(cubin.replace(b"k_spill", b"k_sp\xffll"))
        d = run(occ, ["kernels", path, "--json"])
        names = [k.get("name") for k in d.get("kernels", [])] if isinstance(d, dict) else []
        check("k_sp\u00ffll" in names, "kernels: the name with byte 0xff is not 'k_sp\\u00ffll': %s" % names)


def main():
    if len(sys.argv) != 2:
        print("usage: test_json.py OCCCALC", file=sys.stderr)
        return 2
    occ = os.path.abspath(sys.argv[1])
    for t in (seed_example, vectoradd2, vectoradd1, r_table, ties, h100, h200_clusters, cannot_launch, devices,
              other_commands, every_format, golden_outputs, trace_reports, names_not_utf8):
        before = len(FAILS)
        t(occ)
        print("%s %s" % ("ok  " if len(FAILS) == before else "FAIL", t.__name__))
    for f in FAILS:
        print("  " + f)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
