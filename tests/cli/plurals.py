#!/usr/bin/env python3
"""Counts read as a person writes them: "1 kernel", "1 launch", never
"1 kernels", in everything occcalc prints.

  plurals.py OCCCALC SOURCE_ROOT

Reads the committed outputs that the golden tests compare with occcalc's
(tests/cli/golden/, the trace reports of tests/data/trace/), and runs occcalc
where the counts are 1: a trace of one process, thread, kernel and launch, a
kernel file of one kernel, one work-group.  A "1" followed by a plural count
noun (optionally after one word: "1 work-group sizes") fails; "N / 1 contexts"
is a ratio, not a count.  Exit 0 pass, 1 fail."""
import glob
import os
import re
import subprocess
import sys
import tempfile

NOUNS = ("kernels", "launches", "configurations", "work-groups", "work-items", "processes", "threads",
         "grids", "sizes", "waves", "contexts", "phases", "records", "points", "durations", "registers",
         "entries", "dimensions", "files", "devices", "blocks", "warps", "lines", "values", "failures",
         "errors", "shapes", "modes", "steps", "members", "sections", "times", "executions", "characters",
         "levels", "columns", "rows", "GPUs", "cores", "SMs", "Xe-cores", "sub-groups", "slices", "EUs",
         "objects", "targets", "duplicates")
ONE_PLURAL = re.compile(r"(?<![\w.,])1 (?:[A-Za-z-]+ )?(?:%s)\b" % "|".join(map(re.escape, NOUNS)))


def offences(text):
    return [m.group(0) for m in ONE_PLURAL.finditer(text) if text[max(0, m.start() - 2):m.start()] != "/ "]


def main(occcalc, root):
    failures = []

    def scan(what, text):
        bad = offences(text)
        if bad:
            failures.append("%s: %s" % (what, ", ".join(sorted(set(bad)))))

    # the checker itself: it finds what it is for, and passes what is right
    if offences("totals: 1 kernels, 1 launches") != ["1 kernels", "1 launches"] or \
            offences("1 kernel, 1 launch, 1 work-group size, 64 / 1 contexts, 11 kernels"):
        failures.append("the checker does not tell singular from plural")
    outputs = sorted(glob.glob(os.path.join(root, "tests", "cli", "golden", "*")) +
                     glob.glob(os.path.join(root, "tests", "data", "trace", "*", "report.txt")))
    for path in outputs:
        with open(path, errors="replace") as f:
            scan(os.path.relpath(path, root), f.read())

    def run(args):
        r = subprocess.run([occcalc] + args, capture_output=True, text=True, timeout=120)
        scan("occcalc " + " ".join(args), r.stdout + r.stderr)
        return r

    with tempfile.TemporaryDirectory(prefix="occ-plurals-") as tmp:
        # one process, one thread, one device, one kernel, one launch (docs/trace.md's format)
        with open(os.path.join(tmp, "7.rec"), "w") as f:
            f.write("occ-trace 1\nX dropped 0000000000 other 0000000000 errno 000\nP 7 1 /bin/app\n"
                    "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x9a49 "
                    "name=Intel(R)_Iris(R)_Xe_Graphics\n"
                    "K 1 ze dev=1 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=k\n"
                    "L 1 7 ze normal wg=64,1,1 groups=1,1,1 dyn=0 rc=0\n")
        r = run(["trace", "--replay", tmp])
        for want in ("1 kernel, 1 launch, 1 process, 1 thread\n", "\n  1 launch, 1 work-group size, 1 grid\n",
                     "totals: 1 kernel, 1 launch,", "device: Intel(R) Iris(R) Xe Graphics: built-in profile tgl"):
            if want not in r.stdout + r.stderr:
                failures.append("trace of one launch: no %r in:\n%s" % (want, r.stdout + r.stderr))
    zebin = os.path.join(root, "tests", "kernels", "intel", "kernels_tgllp.zebin")
    run(["kernels", zebin])
    run(["--kernel", zebin + ":k_sg16", "--wg", "512", "--groups", "1"])
    run(["--device", "h100-sxm", "--wg", "1024", "--regs", "64", "--groups", "1"])
    run(["advise", "--device", "h100-sxm", "--global", "1024", "--regs", "255"])
    run(["phases", "--wg", "512", "--sg", "32", "--groups", "1"])
    run(["limits", "--wg", "512", "--sg", "32"])
    for f in failures:
        print("FAIL:", f)
    print("%d outputs read and 7 runs: %s" % (len(outputs), "%d failure(s)" % len(failures) if failures else "all counts agree"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
