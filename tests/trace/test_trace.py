#!/usr/bin/env python3
"""Tests of `occcalc trace` (docs/trace.md).

  test_trace.py cli OCCCALC [STATIC_PROGRAM]   the command on ordinary programs: exit
                                               status, signals, usage, bad records
  test_trace.py ze OCCCALC APP SPV             the Level Zero program traced with the Intel
                                               driver in hardware-less mode, launch by launch
  test_trace.py cuda-replay OCCCALC DATA_DIR   the recorded runs: occ == driver per launch (blocks
                                               per SM; active clusters for cluster launches)
  test_trace.py ze-replay OCCCALC DATA_DIR     the recorded Level Zero runs: device named, report
  test_trace.py check-cuda TRACE_JSON [MIN-MAX] the same check on a fresh report (GPU machine);
                                               MIN-MAX: launches of block_sum expected (6-6)
  test_trace.py check-clusters TRACE_JSON N     occ's active clusters == the driver's, for at
                                               least N launches in clusters (GPU machine)

Exit 0 pass, 1 fail, 77 skip.
"""
import csv
import io
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def run(args, env=None, cwd=None, timeout=300):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(args, env=e, cwd=cwd, capture_output=True, timeout=timeout)


def finish(what):
    if failures:
        print("%s: %d failure(s)" % (what, len(failures)))
        return 1
    print("%s: all checks passed" % what)
    return 0


# ---- the command on any program ------------------------------------------------------

RECORD = (
    "occ-trace 1\n"
    "P 41 1 /bin/app\n"
    "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x9a49 name=Hand-made\n"
    "K 1 ze dev=1 sg=16 req_sg=0 slm=1024 private=0 spill=64 grf=default req_wg=0,0,0 name=k_one\n"
    "L 1 41 ze normal wg=64,1,1 groups=10,1,1 dyn=0 rc=0\n"
    "L 1 42 ze normal wg=64,1,1 groups=10,1,1 dyn=0 rc=0\n"
    "L 1 42 ze normal wg=256,1,1 groups=?,1,1 dyn=3072 rc=0\n"
    "K 2 ze dev=1 sg=8 req_sg=0 slm=0 private=0 spill=0 grf=large req_wg=0,0,0 name=k_two\n"
    "L 2 41 ze indirect wg=512,1,1 groups=? dyn=0 rc=0\n"
    "L 9 41 ze normal wg=8,1,1 groups=1,1,1 dyn=0 rc=0\n"
    "U 41 ze multiple-indirect kernels=3 rc=0\n"
)


def test_cli(occcalc, static_prog):
    tmp = tempfile.mkdtemp(prefix="occ-trace-cli-")

    def rc_of(args, **kw):
        return run([occcalc, "trace"] + args, **kw)

    # usage errors (2)
    for args, text in [
        ([], "no PROGRAM"),
        (["--json", "--csv", "--", "true"], "exclusive"),
        (["--replay", tmp, "--", "true"], "runs nothing"),
        (["--frobnicate", "--", "true"], "unknown"),
        (["--device", "no-such-device", "--", "true"], "no-such-device"),
    ]:
        r = rc_of(args)
        check(r.returncode == 2, "trace %s: exit %d, expected 2" % (args, r.returncode))
        check(text in r.stderr.decode(), "trace %s: stderr lacks %r: %r" % (args, text, r.stderr))
    # a bad profile (3), before anything runs
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("name: [\n")
    marker = os.path.join(tmp, "ran")
    r = rc_of(["--device", bad, "--", "touch", marker])
    check(r.returncode == 3, "bad profile: exit %d, expected 3" % r.returncode)
    check(not os.path.exists(marker), "bad profile: the program ran anyway")
    # not found (127), not executable (126)
    r = rc_of(["--", "/nonexistent/program"])
    check(r.returncode == 127 and b"not found" in r.stderr, "missing program: %d %r" % (r.returncode, r.stderr))
    r = rc_of(["--", "no-such-command-occ-trace"])
    check(r.returncode == 127, "missing command: exit %d" % r.returncode)
    r = rc_of(["--", bad])
    check(r.returncode == 126 and b"not executable" in r.stderr, "not executable: %d %r" % (r.returncode, r.stderr))
    # a static program (4): refused with the reason
    if static_prog:
        r = rc_of(["--", static_prog])
        check(r.returncode == 4 and b"statically linked" in r.stderr,
              "static program: %d %r" % (r.returncode, r.stderr))
    # the interposer missing, or at a path LD_PRELOAD cannot carry (4)
    r = rc_of(["--", "true"], env={"OCC_TRACE_LIB": os.path.join(tmp, "missing.so")})
    check(r.returncode == 4 and b"OCC_TRACE_LIB" in r.stderr, "missing interposer: %d %r" % (r.returncode, r.stderr))
    odd = os.path.join(tmp, "a b.so")
    open(odd, "w").close()
    r = rc_of(["--", "true"], env={"OCC_TRACE_LIB": odd})
    check(r.returncode == 4 and b"blank or a colon" in r.stderr, "odd interposer path: %d %r" % (r.returncode, r.stderr))
    # the program's output and exit status pass through; the report goes to -o
    rep = os.path.join(tmp, "rep.txt")
    r = rc_of(["-o", rep, "--", "sh", "-c", "echo out; echo err >&2; exit 3"])
    check(r.returncode == 3, "exit status: %d, expected 3" % r.returncode)
    check(r.stdout == b"out\n", "stdout changed: %r" % r.stdout)
    check(r.stderr == b"err\n", "stderr changed: %r" % r.stderr)
    text = open(rep).read() if os.path.exists(rep) else ""
    check("no kernel launches were seen" in text, "report of a program without launches: %r" % text)
    # without -o the report follows the program's own stderr
    r = rc_of(["--", "sh", "-c", "echo err >&2"])
    check(r.returncode == 0 and r.stderr.startswith(b"err\nocccalc trace: sh"), "report on stderr: %r" % r.stderr)
    # death by a signal passes through as the same signal
    r = rc_of(["-o", rep, "--", "sh", "-c", "kill -TERM $$"])
    check(r.returncode == -signal.SIGTERM, "signal: returncode %d, expected -SIGTERM" % r.returncode)
    check("killed by signal 15" in open(rep).read(), "signal not in the report")
    # a report that cannot be written after a successful program: 6 (EXIT_OUTPUT)
    r = rc_of(["-o", "/nonexistent/dir/report.txt", "--", "true"])
    check(r.returncode == 6 and b"report.txt: No such file or directory" in r.stderr, "unwritable report: %d %r" % (r.returncode, r.stderr))
    # --records keeps the directory; an earlier run's files are replaced
    recs = os.path.join(tmp, "recs")
    os.mkdir(recs)
    with open(os.path.join(recs, "1.rec"), "w") as f:
        f.write(RECORD)
    r = rc_of(["--records", recs, "-o", rep, "--", "true"])
    files = os.listdir(recs)
    check(r.returncode == 0 and len(files) == 1 and files[0] != "1.rec", "--records: files %s" % files)
    # every process the interposer is loaded into is listed, launches or not
    body = open(os.path.join(recs, files[0]), "rb").read().rstrip(b"\0").decode()
    check(body.startswith("occ-trace 1\nX dropped 0000000000 other 0000000000 errno 000\nP ") and body.rstrip().endswith("/true"), "record of true: %r" % body)
    check("no kernel launches were seen in the 1 traced process" in open(rep).read(), "report of true")
    # exec in the same process: the new image writes PID.1.rec, the first image's file stays
    r = rc_of(["--records", recs, "--json", "-o", rep, "--", "sh", "-c", "exec true"])
    files = sorted(os.listdir(recs), key=len)
    check(len(files) == 2 and files[1].endswith(".1.rec") and files[0] == files[1].replace(".1.rec", ".rec"),
          "exec: record files %s" % files)
    ps = json.load(open(rep))["processes"]
    check(len(ps) == 2 and ps[0]["pid"] == ps[1]["pid"] and {p_["executable"].rsplit("/", 1)[-1] for p_ in ps} >= {"true"},
          "exec: processes %r" % ps)
    recs = os.path.join(tmp, "handmade")
    os.mkdir(recs)
    # replay: a nonexistent directory (3)
    r = rc_of(["--replay", os.path.join(tmp, "nope")])
    check(r.returncode == 3 and b"cannot open the record directory" in r.stderr, "replay missing dir: %r" % r.stderr)

    # replay of hand-made records (a cut line, NUL padding, an unknown kernel id)
    with open(os.path.join(recs, "41.rec"), "wb") as f:
        f.write(RECORD.encode() + b"L 1 41 ze nor\0\0\0\0\nL 1 41 ze normal wg=64,1,1 groups=10,1,1 dyn=0 rc=0\n"
                + b"\0" * 100 + b"L 1 41 ze normal wg=64")
    out = os.path.join(tmp, "replay.json")
    r = rc_of(["--replay", recs, "--json", "--launches", "-o", out])
    check(r.returncode == 0, "replay: exit %d %r" % (r.returncode, r.stderr))
    j = json.load(open(out))
    check(j["schema"] == "occ-trace/1", "schema %r" % j["schema"])
    t = j["totals"]
    check(t["launches"] == 6 and t["launches_of_unknown_kernels"] == 1, "totals %r" % t)
    check(t["unreadable_record_lines"] == 2, "unreadable lines: %r" % t["unreadable_record_lines"])
    check(t["unresolved_indirect_launches"] == 1 and t["processes"] == 1 and t["threads"] == 2, "totals %r" % t)
    check(j["devices"][0]["profile"] == "tgl", "device chosen: %r" % j["devices"])
    ks = {k["name"]: k for k in j["kernels"]}
    one = ks["k_one"]
    check(one["launches"] == 4 and one["resources"]["spill_bytes"] == 64, "k_one: %r" % one)
    cfg = [c for c in one["configurations"] if c["work_group"] == [64, 1, 1]][0]
    p = cfg["prediction"]
    # by hand (tgl: 6 Xe-cores x 16 XVE x 7 threads = 112 contexts per core, 64 KB SLM):
    # 64 work-items at SIMD 16 = 4 contexts -> 28 per core by threads; 1 KB SLM -> 64 by SLM
    check(cfg["launches"] == 3 and p["resident_work_groups"] == 28 and p["occupancy"] == 1
          and p["limited_by"] == ["threads"], "k_one wg 64: %r" % cfg)
    # 10 work-groups on 6 cores x 28: one wave, 10 x 4 / 672 contexts busy
    check(p["waves"] == 1 and abs(p["waves_average_occupancy"] - 40 / 672) < 1e-9, "k_one waves: %r" % p)
    ind = [c for c in one["configurations"] if c["work_group"] == [256, 1, 1]][0]
    # 256 / 16 = 16 contexts -> 7 by threads; 4 KB SLM -> 16: 7 resident, 16 x 7 / 112
    check(ind["grid"] is None and ind["prediction"]["resident_work_groups"] == 7
          and "waves" not in ind["prediction"], "k_one indirect-grid config: %r" % ind)
    two = ks["k_two"]["configurations"][0]["prediction"]
    # large GRF on tgl? tgl has one GRF mode: the largest is the default, 512 / 8 = 64 contexts -> 1
    check(two["resident_work_groups"] == 1 and abs(two["occupancy"] - 64 / 112) < 1e-9, "k_two: %r" % two)
    # its next step is the first of the several the calculator lists for the same kernel
    calc = json.loads(run([occcalc, "--device", "tgl", "--wg", "512", "--sg", "8", "--json"]).stdout)
    check(len(calc["next_steps"]) > 1 and two["next_step"] == calc["next_steps"][0]["text"],
          "k_two next step %r, calc %r" % (two["next_step"], calc["next_steps"]))
    r = rc_of(["--replay", recs, "--csv", "-o", out])
    rows = list(csv.DictReader(open(out)))
    check(len(rows) == 3 and {row["kernel"] for row in rows} == {"k_one", "k_two"}, "csv rows %r" % rows)
    r = rc_of(["--replay", recs, "--csv", "--launches", "-o", out])
    rows = list(csv.DictReader(open(out)))
    check(len(rows) == 5 and all(row["pid"] == "41" for row in rows), "csv launches %r" % rows)
    # repeat counts (N lines) attach to the launch line they name; bad ones are counted
    rep_dir = os.path.join(tmp, "repeats")
    os.mkdir(rep_dir)
    with open(os.path.join(rep_dir, "5.rec"), "w") as f:
        f.write("occ-trace 1\nP 5 1 /bin/app\n"
                "K 1 ze dev=0 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=k\n"
                "L 1 5 ze normal wg=64,1,1 groups=1,1,1 dyn=0 rc=0\n"
                "L 1 5 ze normal wg=128,1,1 groups=1,1,1 dyn=0 rc=0\n"
                "L 1 6 ze normal wg=32,1,1 groups=1,1,1 dyn=0 rc=0\n"
                "N 5 1 0000000002\nN 6 0 0000000010\nN 7 0 0000000001\nN 5 5 0000000001\nN 5 0 12x4567890\n")
    r = rc_of(["--replay", rep_dir, "--device", "tgl", "--json", "--launches", "-o", out])
    j = json.load(open(out))
    counts = [(l["tid"], l["work_group"][0], l["count"]) for l in j["launches"]]
    check(counts == [(5, 64, 3), (5, 128, 1), (6, 32, 11)], "repeat counts %r" % counts)
    check(j["totals"]["launches"] == 15 and j["totals"]["unreadable_record_lines"] == 3, "repeats totals %r" % j["totals"])
    # -o to a FIFO (as to /dev/null): written in place, not replaced by a regular file
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    got = []
    import threading
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    r = rc_of(["--replay", recs, "--csv", "-o", fifo])
    reader.join(30)
    check(r.returncode == 0 and got and got[0].startswith("kernel,api"), "-o FIFO: %d %r" % (r.returncode, got))
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "-o FIFO: the FIFO was replaced")
    r = rc_of(["--replay", recs, "--device", "dg1", "-o", out])
    txt = open(out).read()
    check("device: dg1 (--device)" in txt and "unreadable" in txt and "kernel k_one" in txt, "text replay: %s" % txt)
    test_cli_hostile(occcalc, tmp, rc_of)
    return finish("trace-cli")


def test_cli_hostile(occcalc, tmp, rc_of):
    """Records and paths a hostile or unlucky run gives (docs/testing.md)."""
    # -o that cannot be written: refused before the program runs (6), nothing run
    marker = os.path.join(tmp, "ran-anyway")
    r = rc_of(["-o", "/nonexistent/dir/report.txt", "--", "touch", marker])
    check(r.returncode == 6 and b"report.txt" in r.stderr and not os.path.exists(marker),
          "-o unwritable: exit %d, ran %s" % (r.returncode, os.path.exists(marker)))
    # records that cannot be read back after the run (the program put a FIFO among them): exit 3,
    # and the records are kept, their directory named, not deleted
    r = rc_of(["-o", os.path.join(tmp, "late.txt"), "--", "sh", "-c", 'mkfifo "$OCC_TRACE_DIR/x.rec"'])
    m = re.search(rb"records are kept in (\S+) ", r.stderr)
    check(r.returncode == 3 and b"not a regular file" in r.stderr and m and os.path.isdir(m.group(1)),
          "late failure: exit %d, %r" % (r.returncode, r.stderr))
    if m:
        shutil.rmtree(m.group(1), ignore_errors=True)
    # a kernel created and never launched (no configuration), with --json
    d = os.path.join(tmp, "unlaunched")
    os.mkdir(d)
    with open(os.path.join(d, "7.rec"), "w") as f:
        f.write("occ-trace 1\nP 7 1 /bin/app\n"
                "K 1 ze dev=0 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=never\n")
    out = os.path.join(tmp, "unlaunched.json")
    r = rc_of(["--replay", d, "--device", "tgl", "--json", "-o", out])
    j = json.load(open(out)) if r.returncode == 0 else {}
    ks = j.get("kernels", [])
    check(r.returncode == 0 and len(ks) == 1 and ks[0]["launches"] == 0 and ks[0]["next_step"] is None
          and ks[0]["configurations"] == [], "unlaunched kernel: %d %r %r" % (r.returncode, ks, r.stderr))
    # losses: a process that stopped recording (a full disk) and one at its cap
    d = os.path.join(tmp, "dropped")
    os.mkdir(d)
    kline = "K 1 ze dev=0 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=k\n"
    with open(os.path.join(d, "8.rec"), "w") as f:
        f.write("occ-trace 1\nX dropped 0000000123 other 0000000004 errno 028\nP 8 1 /bin/app\n" + kline
                + "L 1 8 ze normal wg=64,1,1 groups=1,1,1 dyn=0 rc=0\n")
    with open(os.path.join(d, "9.rec"), "w") as f:
        f.write("occ-trace 1\nX dropped 0000000002 other 0000000000 errno 000\nP 9 1 /bin/app\n")
    r = rc_of(["--replay", d, "--device", "tgl", "--json", "-o", out])
    t = json.load(open(out))["totals"]
    check(t["dropped"] == 125 and t["dropped_records"] == 4 and t["launches"] == 1
          and t["dropped_reason"] == os.strerror(28), "dropped totals %r" % t)
    r = rc_of(["--replay", d, "--device", "tgl", "-o", out])
    txt = open(out).read()
    check("125 launches and 4 other records not recorded" in txt and os.strerror(28) in txt,
          "dropped in text: %s" % txt)
    # many distinct configurations: read and aggregated in linear time (50 000 here
    # took 5.5 s when each was compared with every other; well under 1 s now)
    d = os.path.join(tmp, "many")
    os.mkdir(d)
    n = 50000
    with open(os.path.join(d, "10.rec"), "w") as f:
        f.write("occ-trace 1\nP 10 1 /bin/app\n" + kline)
        f.writelines("L 1 10 ze normal wg=64,1,1 groups=%d,1,1 dyn=0 rc=0\n" % (i + 1) for i in range(n))
        f.writelines("N 10 %d 0000000001\n" % (n - 1) for i in range(n)) # each names the first line
    start = time.monotonic()
    r = rc_of(["--replay", d, "--device", "tgl", "--json", "-o", out])
    took = time.monotonic() - start
    j = json.load(open(out))
    cfgs = j["kernels"][0]["configurations"]
    check(r.returncode == 0 and len(cfgs) == n and cfgs[0]["launches"] == n + 1 and j["totals"]["launches"] == 2 * n,
          "many configurations: %d configurations, totals %r" % (len(cfgs), j["totals"]))
    check(took < 20, "many configurations: %.1f s" % took)


# ---- Level Zero, hardware-less ------------------------------------------------------------

HWLESS = {"NEOReadDebugKeys": "1", "SetCommandStreamReceiver": "1", "ProductFamilyOverride": "tgllp"}


def read_expect(paths):
    per_tid = {}
    for p in paths:
        for line in open(p):
            f = line.split()
            e = dict(tid=int(f[0]), kernel=f[1], wg=[int(x) for x in f[2:5]], arg_slm=int(f[5]),
                     groups=[int(x) for x in f[6:9]], simd=int(f[9]), slm=int(f[10]),
                     private=int(f[11]), spill=int(f[12]), rc=int(f[13]))
            per_tid.setdefault(e["tid"], []).append(e)
    return per_tid


def model(occcalc, cache, device, e):
    """The model's answer from the driver-reported resources, through `occcalc calc`."""
    key = (device, tuple(e["wg"]), e["simd"], e["slm"] + e["arg_slm"], tuple(e["groups"]))
    if key not in cache:
        wg = ",".join(str(x) for x in e["wg"])
        n = e["groups"][0] * e["groups"][1] * e["groups"][2]
        args = [occcalc, "--device", device, "--wg", wg, "--sg", str(e["simd"]), "--groups", str(n), "--json"]
        if e["slm"] + e["arg_slm"]:
            args += ["--slm", str(e["slm"] + e["arg_slm"])]
        r = run(args)
        cache[key] = json.loads(r.stdout) if r.stdout else {"launchable": False, "rc": r.returncode}
    return cache[key]


def test_ze(occcalc, app, spv):
    tmp = tempfile.mkdtemp(prefix="occ-trace-ze-")
    expect = os.path.join(tmp, "expect.txt")
    out = os.path.join(tmp, "trace.json")
    first = run([app, spv, expect], env=HWLESS, cwd=tmp)
    if first.returncode != 0:
        msg = first.stderr.decode(errors="replace")
        if "zeInit" in msg and os.environ.get("OCC_TEST_REQUIRE_ZE") != "1":
            print("SKIP: the Intel Level Zero driver is not usable here:", msg)
            return 77
        fail("the program alone: exit %d: %s" % (first.returncode, msg))
        return finish("trace-ze")
    recs = os.path.join(tmp, "recs")
    r = run([occcalc, "trace", "--json", "--launches", "--records", recs, "-o", out, "--", app, spv, expect],
            env=HWLESS, cwd=tmp)
    check(r.returncode == 0, "traced: exit %d: %r" % (r.returncode, r.stderr))
    check(r.stdout == b"ze_trace_app: stdout line\n", "stdout changed: %r" % r.stdout)
    check(r.stderr == first.stderr, "stderr changed: %r, alone %r" % (r.stderr, first.stderr))
    j = json.load(open(out))
    exp = read_expect([expect, expect + ".child"])
    check(j["devices"][0]["profile"] == "tgl", "device: %r" % j["devices"])
    # the driver's generic "Intel(R) Graphics [0xff20]" shown by the id's product line
    check(j["devices"][0]["name"] == "Intel Tiger Lake (hardware-less placeholder id), PCI id 0xff20",
          "device name: %r" % j["devices"])
    t = j["totals"]
    n_exp = sum(len(v) for v in exp.values())
    check(t["launches"] == n_exp == 55, "launches %d, expected %d" % (t["launches"], n_exp))
    check(t["processes"] == 2 and t["threads"] == 3, "processes/threads: %r" % t)
    # the 40 launches in a row are one launch line and a count
    lines = b"".join(open(os.path.join(recs, f), "rb").read() for f in os.listdir(recs)).split(b"\n")
    n_l = sum(1 for x in lines if x.lstrip(b"\0").startswith(b"L "))
    n_n = [x for x in lines if x.lstrip(b"\0").startswith(b"N ")]
    check(n_l == 16 and len(n_n) == 1 and n_n[0].endswith(b" 0000000039"), "records: %d L lines, N lines %r" % (n_l, n_n))
    got = {}
    for l in j["launches"]:  # a record with a count stands for that many launches in a row
        got.setdefault(l["tid"], []).extend([l] * l["count"])
    check(sorted(got) == sorted(exp), "threads %s, expected %s" % (sorted(got), sorted(exp)))
    cache = {}
    compared = 0
    for tid, es in exp.items():
        ls = got.get(tid, [])
        check(len(ls) == len(es), "thread %d: %d launches, expected %d" % (tid, len(ls), len(es)))
        for i, (e, l) in enumerate(zip(es, ls)):
            where = "thread %d launch %d (%s)" % (tid, i, e["kernel"])
            check(l["kernel"] == e["kernel"] and l["work_group"] == e["wg"] and l["grid"] == e["groups"]
                  and l["dynamic_local_bytes"] == e["arg_slm"] and l["result"] == e["rc"],
                  "%s: recorded %r, the program did %r" % (where, l, e))
            m = model(occcalc, cache, "tgl", e)
            p = l["prediction"]
            check(p["sub_group"] == e["simd"] and p["local_memory_bytes"] == e["slm"] + e["arg_slm"],
                  "%s: model inputs %r, driver %r" % (where, p, e))
            check(p["launchable"] == m["launchable"], "%s: launchable %r vs %r" % (where, p, m))
            if m["launchable"]:
                c, g = m["core"], m["gpu"]
                check(p["resident_work_groups"] == c["resident_work_groups"]
                      and abs(p["occupancy"] - c["occupancy"]) < 1e-9
                      and p["limited_by"] == c["limited_by"], "%s: core %r vs model %r" % (where, p, c))
                check(p["waves"] == g["waves"] and abs(p["waves_average_occupancy"] - g["waves_average_occupancy"]) < 1e-9,
                      "%s: gpu %r vs model %r" % (where, p, g))
                nxt = m["next_steps"][0]["text"] if m["next_steps"] else None
                check(p["next_step"] == nxt, "%s: next step %r vs %r" % (where, p["next_step"], nxt))
            compared += 1
    check(compared == 55, "compared %d launches" % compared)
    # kernels: resources as the driver reported them
    for k in j["kernels"]:
        es = [e for v in exp.values() for e in v if e["kernel"] == k["name"]]
        res = k["resources"]
        check(es and res["simd"] == es[0]["simd"] and res["slm_static_bytes"] == es[0]["slm"]
              and res["spill_bytes"] == es[0]["spill"] and res["private_bytes"] == es[0]["private"],
              "kernel %s resources %r vs %r" % (k["name"], res, es[:1]))
        check(k["launches"] == len(es), "kernel %s: %d launches, expected %d" % (k["name"], k["launches"], len(es)))
    # text and CSV of the same run
    r = run([occcalc, "trace", "--csv", "--", app, spv, expect], env=HWLESS, cwd=tmp)
    text = r.stderr.decode()
    rows = list(csv.DictReader(io.StringIO(text[text.index("kernel,api"):])))
    n_cfg = sum(len(k["configurations"]) for k in j["kernels"])
    check(len(rows) == n_cfg and sum(int(x["launches"]) for x in rows) == 55, "csv: %d rows, %d configurations" % (len(rows), n_cfg))
    r = run([occcalc, "trace", "--", app, spv, expect], env=HWLESS, cwd=tmp)
    text = r.stderr.decode()
    for name in ("reduce_slm", "scale", "tile_static", "wide_sg32"):
        check("\nkernel %s\n" % name in text, "text report lacks kernel %s" % name)
    check("4 kernels, 55 launches, 2 processes, 3 threads" in text, "text totals: %s" % text[:400])
    # exit status and signals pass through; the report is still written
    r = run([occcalc, "trace", "-o", out, "--json", "--", app, spv, expect, "exit", "7"], env=HWLESS, cwd=tmp)
    check(r.returncode == 7 and json.load(open(out))["totals"]["launches"] == 55, "exit 7: %d" % r.returncode)
    for sig in (signal.SIGSEGV, signal.SIGKILL):
        r = run([occcalc, "trace", "-o", out, "--json", "--", app, spv, expect, "kill", str(int(sig))], env=HWLESS, cwd=tmp)
        rep = json.load(open(out))
        check(r.returncode == -sig, "kill %d: returncode %d" % (sig, r.returncode))
        check(rep["totals"]["launches"] == 55 and rep["program"]["signal"] == sig,
              "kill %d: report %r" % (sig, rep["totals"]))
    return finish("trace-ze")


# ---- CUDA: occ against cuOccupancyMaxActiveBlocksPerMultiprocessor ----------------------

def check_cuda_report(j, where, own=(6, 6)):
    # a record with a count stands for that many launches of the same configuration
    launches = [l for l in j["launches"] if l["kernel"] is not None for _ in range(l.get("count", 1))]
    check(len(launches) == j["totals"]["launches"] and j["totals"]["launches_of_unknown_kernels"] == 0,
          "%s: launches of unknown kernels" % where)
    names = {l["kernel"] for l in launches}
    gemm = {n for n in names if "gemm" in n.lower()}
    check("block_sum" in " ".join(names), "%s: the program's own kernel was not seen: %s" % (where, names))
    check(len(gemm) >= 2, "%s: fewer than 2 cuBLAS gemm kernels: %s" % (where, names))
    own_range = own
    own = [l for l in launches if "block_sum" in l["kernel"]]
    check(own_range[0] <= len(own) <= own_range[1],
          "%s: %d launches of block_sum, expected %d to %d" % (where, len(own), own_range[0], own_range[1]))
    equal = 0
    for l in launches:
        p, drv = l.get("prediction"), l.get("driver_resident_blocks")
        if not check(p is not None and drv is not None, "%s: %s without a prediction or driver answer" % (where, l["kernel"])):
            continue
        occ = p["resident_work_groups"] if p["launchable"] else 0
        if check(occ == drv, "%s: %s block %r dynamic %d: occ %d, driver %d"
                 % (where, l["kernel"][:60], l["work_group"], l["dynamic_local_bytes"], occ, drv)):
            equal += 1
    print("%s: %d launches of %d kernels (%d cuBLAS gemm kernels): occ equals the driver on %d"
          % (where, len(launches), len(names), len(gemm), equal))
    return len(launches)


def recorded_runs(data, prefix):
    """The recorded runs of tests/data/trace/ whose folder starts with prefix."""
    runs = sorted(d for d in os.listdir(data) if d.startswith(prefix)) if os.path.isdir(data) else []
    check(runs, "no recorded %s* runs in %s" % (prefix, data))
    return runs


def replay_json(occcalc, data, d, tmp, *extra):
    """The JSON report of recorded run d, or None (a failure counted)."""
    recs = os.path.join(data, d, "records")
    out = os.path.join(tmp, d + ".json")
    r = run([occcalc, "trace", "--replay", recs, "--json", "-o", out] + list(extra))
    if not check(r.returncode == 0, "%s: replay exit %d %r" % (d, r.returncode, r.stderr)):
        return None
    return json.load(open(out))


def replay_text_is_golden(occcalc, data, d, tmp):
    """The text report of run d equals its committed report.txt (OCC_REGEN=1
    rewrites it); the text."""
    recs = os.path.join(data, d, "records")
    golden = os.path.join(data, d, "report.txt")
    run([occcalc, "trace", "--replay", recs, "-o", os.path.join(tmp, "report.txt")])
    now = open(os.path.join(tmp, "report.txt")).read().replace(recs, "RECORDS")
    if os.environ.get("OCC_REGEN") == "1":
        with open(golden, "w") as f:
            f.write(now)
    check(os.path.exists(golden) and open(golden).read() == now, "%s: report differs from %s" % (d, golden))
    return now


def check_cluster_report(j, where, at_least):
    """Every launch in clusters: occ's clusters at once equal the driver's
    cuOccupancyMaxActiveClusters asked during the run."""
    launches = [l for l in j["launches"] if "driver_max_active_clusters" in l]
    check(len(launches) >= at_least, "%s: %d launches with the driver's cluster answer, expected %d or more"
          % (where, len(launches), at_least))
    equal = 0
    for l in launches:
        occ, drv = l.get("max_active_clusters"), l["driver_max_active_clusters"]
        if check(occ == drv, "%s: %s block %r dynamic %d grid %r: occ %r clusters, driver %d"
                 % (where, l["kernel"][:60], l["work_group"], l["dynamic_local_bytes"], l["grid"], occ, drv)):
            equal += 1
    # a core's occupancy in clusters: the H200 holds at most 8 blocks on an SM in a cluster launch
    capped = 0
    for k in j["kernels"]:
        for c in k["configurations"]:
            p = c["prediction"]
            if "cluster_shape" not in c or not p.get("launchable"):
                continue
            r = p["resident_work_groups"]
            want = p["occupancy"] * min(r, 8) / r
            capped += r > 8
            check(abs(c["cluster_occupancy"] - want) < 1e-9, "%s: %s block %r: cluster_occupancy %r, expected %r"
                  % (where, k["name"][:60], c["work_group"], c["cluster_occupancy"], want))
    check(capped > 0, "%s: no configuration where the cluster cap binds" % where)
    shapes = {tuple(c.get("cluster_shape", ())) for k in j["kernels"] for c in k["configurations"]}
    print("%s: %d launches in clusters (%d shapes): occ equals the driver on %d"
          % (where, len(launches), len(shapes - {()}), equal))
    return len(launches)


def test_cuda_replay(occcalc, data):
    tmp = tempfile.mkdtemp(prefix="occ-trace-cuda-")
    for d in recorded_runs(data, "cuda-"):
        recs = os.path.join(data, d, "records")
        j = replay_json(occcalc, data, d, tmp, "--launches")
        if j is None:
            continue
        exp = dict(kv.split("=") for kv in open(os.path.join(data, d, "expect.txt")).read().split())
        check(j["devices"][0]["profile"] == exp.get("profile", "h100-sxm"), "%s: device %r" % (d, j["devices"]))
        if "clusters" in exp:  # a run of tests/trace/cuda_cluster_app.cu
            check_cluster_report(j, d, int(exp["clusters"]))
            tampered = dict(j, launches=[dict(l) for l in j["launches"]])
            first = next(l for l in tampered["launches"] if "driver_max_active_clusters" in l)
            first["driver_max_active_clusters"] += 1
            before = len(failures)
            print("(a tampered copy must fail once:)")
            check_cluster_report(tampered, d + " tampered", int(exp["clusters"]))
            caught = len(failures) - before
            del failures[before:]
            check(caught == 1, "%s: a changed driver answer gave %d failures, expected 1" % (d, caught))
            replay_text_is_golden(occcalc, data, d, tmp)
            continue
        own = int(exp["block_sum"])
        check(j["totals"]["processes"] == int(exp["processes"]), "%s: processes %r" % (d, j["totals"]))
        n = check_cuda_report(j, d, (own, own))
        check(n >= 14, "%s: only %d launches" % (d, n))
        check(j["totals"]["gpu_time_ns"], "%s: no GPU time" % d)
        # recordings since 2026-11-25 exercise repeat counting (N lines) and merged GPU times (T count>1)
        lines = [l for f in sorted(os.listdir(recs)) for l in open(os.path.join(recs, f), errors="replace")]
        n_lines = sum(1 for l in lines if l.startswith("N "))
        merged = sum(1 for l in lines if l.startswith("T ") and re.search(r" count=([2-9]|[1-9][0-9]+) ", l))
        check(n_lines >= int(exp.get("repeat_lines", 0)), "%s: %d repeat lines, expected %s" % (d, n_lines, exp.get("repeat_lines")))
        check(merged >= int(exp.get("merged_times", 0)), "%s: %d merged time lines, expected %s" % (d, merged, exp.get("merged_times")))
        if "-more" in d or "-crash" in d:
            # the graph of 3 launches replayed twice: 3 launches seen (at capture), 6 executions timed
            g = [c for k in j["kernels"] if "block_sum" in k["name"] for c in k["configurations"]
                 if c["work_group"] == [512, 1, 1] and c["dynamic_local_bytes"] == 2048]
            check(len(g) == 1 and g[0]["launches"] == 3 and g[0]["gpu_executions"] == (6 if "-more" in d else g[0]["gpu_executions"]),
                  "%s: the graph's configuration %r" % (d, g))
        # the trace's model inputs: the calculator on the recorded attributes agrees
        res = {k["name"]: k["resources"] for k in j["kernels"]}
        seen = set()
        for l in j["launches"]:
            r_ = res[l["kernel"]]
            key = (l["kernel"], tuple(l["work_group"]), l["dynamic_local_bytes"])
            if key in seen:
                continue
            seen.add(key)
            args = [occcalc, "--device", "h100-sxm", "--wg", ",".join(map(str, l["work_group"])),
                    "--regs", str(r_["registers"]), "--slm", str(r_["shared_static_bytes"] + l["dynamic_local_bytes"]),
                    "--json"]
            if r_["carveout_preference"] >= 0:
                args += ["--carveout", str(r_["carveout_preference"])]
            if r_["max_threads_per_block"] > 0:  # the function's bound, as the trace's model takes it
                args += ["--max-wg", str(r_["max_threads_per_block"])]
            calc = json.loads(run(args).stdout)
            p = l["prediction"]
            nxt = calc["next_steps"][0]["text"] if calc["next_steps"] else None
            check(calc["launchable"] == p["launchable"] and calc["core"]["resident_work_groups"] == p["resident_work_groups"]
                  and p["next_step"] == nxt, "%s %r: trace %r, calc %r" % (d, key, p, calc["core"]))
        print("%s: %d configurations equal the calculator's answer" % (d, len(seen)))
        # the check can fail: one driver answer changed is one mismatch
        before = len(failures)
        tampered = dict(j, launches=[dict(l) for l in j["launches"]])
        tampered["launches"][0]["driver_resident_blocks"] += 1
        print("(a tampered copy must fail once:)")
        check_cuda_report(tampered, d + " tampered", (own, own))
        caught = len(failures) - before
        del failures[before:]
        check(caught == 1, "%s: a changed driver answer gave %d failures, expected 1" % (d, caught))
        replay_text_is_golden(occcalc, data, d, tmp)
    return finish("trace-cuda-replay")


def test_ze_replay(occcalc, data):
    """The Level Zero runs recorded under the Intel driver in hardware-less
    mode (tests/data/trace/ze-*): the device shown by its product line, not
    the driver's generic name; the report equal to the committed one."""
    tmp = tempfile.mkdtemp(prefix="occ-trace-ze-replay-")
    for d in recorded_runs(data, "ze-"):
        j = replay_json(occcalc, data, d, tmp)
        if j is None:
            continue
        exp = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(data, d, "expect.txt")))
        dev = j["devices"][0]
        # the driver recorded "Intel(R)_Graphics_[0xff20]": its name for a GPU it has no marketing name for
        check(dev["name"] == exp["device"] and dev["profile"] == exp["profile"] and dev["chosen"].startswith(exp["device"] + ": "),
              "%s: device %r" % (d, dev))
        check(j["totals"]["launches"] == int(exp["launches"]) and j["totals"]["kernels"] == int(exp["kernels"]),
              "%s: totals %r" % (d, j["totals"]))
        now = replay_text_is_golden(occcalc, data, d, tmp)
        check("device: " + exp["device"] + ": built-in profile " + exp["profile"] in now, "%s: device line" % d)
    return finish("trace-ze-replay")


def test_bounds_replay(occcalc, data):
    """Recorded runs of tests/trace/cuda_bound_app.cu (bounds-*): kernels with launch bounds
    launched within and outside them.  Every launch the driver refused for its bound (the
    program's own account, expect.txt: kernel block max_threads_per_block cuda_error) is
    flagged outside_bound and called not launchable; every other is launchable with the
    driver's resident blocks; the kernels' and the totals' counts add up."""
    tmp = tempfile.mkdtemp(prefix="occ-trace-bounds-")
    for d in recorded_runs(data, "bounds-"):
        j = replay_json(occcalc, data, d, tmp, "--launches")
        if j is None:
            continue
        expect = [l.split() for l in open(os.path.join(data, d, "expect.txt")) if l.strip()]
        launches = j["launches"]
        check(len(launches) == len(expect), "%s: %d launches, the program made %d" % (d, len(launches), len(expect)))
        res = {k["name"]: k["resources"] for k in j["kernels"]}
        outside = 0
        for l, (name, block, max_threads, err) in zip(launches, expect):
            refused = int(err) != 0
            where = "%s: %s block %s" % (d, name, block)
            check(name in l["kernel"] and l["work_group"] == [int(block), 1, 1], "%s: recorded as %r" % (where, l))
            check(res[l["kernel"]]["max_threads_per_block"] == int(max_threads), "%s: %r" % (where, res[l["kernel"]]))
            check((l["result"] != 0) == refused, "%s: recorded result %d" % (where, l["result"]))
            p = l["prediction"]
            check(l["outside_bound"] == refused and p["launchable"] == (not refused),
                  "%s: driver error %s, trace outside_bound %r launchable %r" % (where, err, l["outside_bound"], p["launchable"]))
            if refused:
                outside += 1
                check("launch bound %s" % max_threads in p["reason"], "%s: reason %r" % (where, p["reason"]))
            else:
                check(p["resident_work_groups"] == l["driver_resident_blocks"],
                      "%s: occ %d, driver %d" % (where, p["resident_work_groups"], l["driver_resident_blocks"]))
        check(outside > 0 and j["totals"]["launches_outside_bound"] == outside
              and sum(k["launches_outside_bound"] for k in j["kernels"]) == outside,
              "%s: %d launches outside their bound, totals %r" % (d, outside, j["totals"]))
        print("%s: %d launches, %d refused by the driver for their bound, all flagged" % (d, len(launches), outside))
        replay_text_is_golden(occcalc, data, d, tmp)




def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    what = argv[1]
    argv = argv[:2] + [os.path.abspath(a) if os.path.exists(a) else a for a in argv[2:]]
    if what == "cli":
        return test_cli(argv[2], argv[3] if len(argv) > 3 else None)
    if what == "ze":
        return test_ze(argv[2], argv[3], argv[4])
    if what == "cuda-replay":
        test_bounds_replay(argv[2], argv[3])
        return test_cuda_replay(argv[2], argv[3])
    if what == "ze-replay":
        return test_ze_replay(argv[2], argv[3])
    if what == "check-clusters":
        check_cluster_report(json.load(open(argv[2])), argv[2], int(argv[3]))
        return finish("check-clusters")
    if what == "check-cuda":
        own = tuple(int(x) for x in argv[3].split("-")) if len(argv) > 3 else (6, 6)
        check_cuda_report(json.load(open(argv[2])), argv[2], own)
        return finish("check-cuda")
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
