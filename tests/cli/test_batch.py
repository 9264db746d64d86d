#!/usr/bin/env python3
"""occcalc batch against occcalc calc, one configuration at a time.

Random configurations (1-3 dimensional work-groups, sub-groups the device has
and some it lacks, local memory, barriers, GRF modes or registers, carveouts,
launch bounds, required sub-groups) on Intel and NVIDIA profiles go through
`occcalc batch` once as CSV and once as JSON Lines; every answer must equal
what `occcalc --json` says for the same configuration alone: launchable, the
reason, thread contexts, resident work-groups, occupancy, the limits.  Then
the input rules: stdin, bad lines (all named, nothing written, exit 3), and
a hostile input (one line of 4 MB, 30 000 bad lines) read in linear time.

usage: test_batch.py OCCCALC
"""
import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

OCC = sys.argv[1]
ENV = dict(os.environ, LC_ALL="C")
PER_DEVICE = 60
failures = []
LAUNCHABLE = [0]


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def run(args, stdin=None):
    return subprocess.run([OCC] + args, input=stdin, capture_output=True, env=ENV)


def random_config(r, nvidia):
    """A configuration as batch fields (values as the flags write them)."""
    c = {}
    dims = r.choice([1, 1, 1, 2, 3])
    if dims == 1:
        c["wg"] = [r.randint(1, 1100)]
    elif dims == 2:
        c["wg"] = [r.randint(1, 40), r.randint(1, 20)]
    else:
        c["wg"] = [r.randint(1, 12), r.randint(1, 8), r.randint(1, 6)]
    if not nvidia and r.random() < 0.8:
        c["sg"] = r.choice([8, 16, 32, 32, 12])
    if r.random() < 0.6:
        c["slm"] = r.randint(0, 120 * 1024)
    if r.random() < 0.5:
        c["barrier"] = r.choice([True, False])
    if nvidia:
        if r.random() < 0.7:
            c["regs"] = r.randint(16, 255)
        if r.random() < 0.3:
            c["carveout"] = r.randint(0, 100)
    elif r.random() < 0.4:
        c["grf"] = r.choice([128, 256])
    if r.random() < 0.2:
        c["max_wg"] = r.randint(32, 1024)
    if not nvidia and r.random() < 0.1:
        c["reqd_sg"] = r.choice([8, 16, 32])
    return c


def flags(c):
    out = []
    for k, v in c.items():
        flag = "--" + k.replace("_", "-")
        if k == "barrier":
            out += [flag] if v else []
        elif isinstance(v, list):
            out += [flag, ",".join(map(str, v))]
        else:
            out += [flag, str(v)]
    return out


def calc_answer(device, c):
    p = run(["--device", device, "--json"] + flags(c))
    d = json.loads(p.stdout)
    core = d["core"]
    return {"launchable": d["launchable"], "reason": d["reason"],
            "thread_contexts_per_work_group": core["thread_contexts_per_work_group"],
            "thread_contexts": core["thread_contexts"],
            "resident_work_groups": core["resident_work_groups"],
            "occupancy": core["occupancy"], "limited_by": core["limited_by"]}


def same(a, b):
    return all(a[k] == b[k] for k in a if k != "occupancy") and abs(a["occupancy"] - b["occupancy"]) < 1e-9


def as_csv(configs):
    names = ["wg", "sg", "slm", "barrier", "grf", "regs", "carveout", "max_wg", "reqd_sg"]
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\n")
    w.writerow(names)
    for c in configs:
        row = []
        for n in names:
            v = c.get(n)
            row.append("" if v is None else ",".join(map(str, v)) if isinstance(v, list)
                       else ("true" if v else "false") if isinstance(v, bool) else str(v))
        w.writerow(row)
    return f.getvalue().encode()


def against_calc(device, nvidia, seed):
    r = random.Random(seed)
    configs = [random_config(r, nvidia) for _ in range(PER_DEVICE)]
    jsonl = "".join(json.dumps(c) + "\n" for c in configs).encode()
    pj = run(["batch", "--device", device], jsonl)
    pc = run(["batch", "--device", device, "-"], as_csv(configs))
    if not check(pj.returncode == 0 and pc.returncode == 0,
                 "%s: batch exit %d / %d: %s" % (device, pj.returncode, pc.returncode, pj.stderr + pc.stderr)):
        return
    lines = [json.loads(x) for x in pj.stdout.decode().splitlines()]
    rows = list(csv.DictReader(io.StringIO(pc.stdout.decode())))
    check(len(lines) == len(configs) and len(rows) == len(configs), "%s: one answer per configuration" % device)
    for i, (c, got, row) in enumerate(zip(configs, lines, rows)):
        want = calc_answer(device, c)
        mine = {k: got[k] for k in want}
        LAUNCHABLE[0] += want["launchable"]
        check(got["line"] == i + 1 and int(row["line"]) == i + 2, "%s: line numbers %r %r" % (device, got, row))
        check(same(mine, want), "%s: %r: batch %r, calc %r" % (device, c, mine, want))
        # the CSV answer is the JSON Lines one, cell by cell
        check(row["launchable"] == ("true" if got["launchable"] else "false")
              and int(row["resident_work_groups"]) == got["resident_work_groups"]
              and abs(float(row["occupancy"]) - got["occupancy"]) < 1e-9
              and row["limited_by"] == "|".join(got["limited_by"])
              and row["reason"] == (got["reason"] or ""), "%s: CSV %r vs JSONL %r" % (device, row, got))


def input_rules():
    seed = b'{"wg": 320, "sg": 8}\n'
    p = run(["batch"], seed)
    check(p.returncode == 0 and json.loads(p.stdout)["resident_work_groups"] == 2, "stdin: %r" % p)
    # one bad line among good ones: all named, stdout empty, exit 3
    bad = b"wg,sg\n320,8\n320,0\n64,8\n0,8\n"
    p = run(["batch"], bad)
    err = p.stderr.decode()
    check(p.returncode == 3 and p.stdout == b"" and "<stdin>:3:" in err and "<stdin>:5:" in err
          and "<stdin>:4:" not in err, "bad lines: %r" % p)
    # hostile: one line of 4 MB, then 30 000 bad lines; linear, the first 20 named
    big = b"wg,sg\n" + b"1" * (4 << 20) + b",8\n" + b"x,8\n" * 30000
    t = time.monotonic()
    p = run(["batch"], big)
    spent = time.monotonic() - t
    err = p.stderr.decode()
    check(p.returncode == 3 and p.stdout == b"" and len(re.findall(r"<stdin>:\d+:", err)) == 20
          and "30001 bad lines in all" in err, "hostile input: exit %d, %r" % (p.returncode, err[-300:]))
    check(spent < 5, "hostile input took %.1f s" % spent)
    # a byte-order mark before the header, as spreadsheets write CSV
    p = run(["batch"], b"\xef\xbb\xbfwg,sg\n320,8\n")
    check(p.returncode == 0 and p.stdout.splitlines()[1].startswith(b"2,320|1|1,true"), "BOM: %r" % p)
    # an input that is not text
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        f.write(b"wg\n64\x00\n")
        f.flush()
        p = run(["batch", f.name])
        check(p.returncode == 3 and b"NUL" in p.stderr, "NUL byte: %r" % p)


for device, nvidia, seed in (("tgl", False, 1), ("arc-a770", False, 2), ("max-1550", False, 3),
                             ("h100-sxm", True, 4), ("a100", True, 5)):
    against_calc(device, nvidia, seed)
input_rules()

for f in failures[:30]:
    print("FAIL:", f)
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("ok: batch equals calc on %d configurations (%d launchable)" % (5 * PER_DEVICE, LAUNCHABLE[0]))
