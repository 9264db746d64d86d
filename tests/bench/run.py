#!/usr/bin/env python3
"""occ's benchmark command: runs every benchmark program of a build, measures
occcalc's cold run, and prints ONE table: occ's figure, the reference measured
in the same run (where there is one), and the ratio.

    meson compile -C build bench          (the documented entry point)
    python3 tests/bench/run.py BUILD_DIR [--markdown] [--quick]
    python3 tests/bench/run.py --check-labels SOURCE_ROOT   (a test: every figure has a label)

Programs (built under BUILD_DIR/tests/bench; a missing one is reported, not fatal):
  bench_ze_reference    residency query vs the Intel driver (Level Zero, hardware-less)
  bench_cuda_reference  residency query vs cuOccupancyMaxActiveBlocksPerMultiprocessor (GPU only)
  bench_residency       residency query, one by one and batched
  bench_advise          a full advise
  bench_phases          phase simulation, 10^9 equal and 10^7 unequal work-groups
  bench_kernels         open a 1 MB cubin and list its kernels
A program reports figures as lines
  BENCH <tab> key <tab> value <tab> unit [<tab> reference <tab> value]
(tests/bench/bench_common.h); programs that print their own format are read
by the small adapters below.  Exit status 77 from a program means "the
reference is not available here": its own figures are still used.
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time

# Row labels and order for the keys we know; other keys are shown as they come.
LABELS = [
    ("prepared_query", "prepared kernel occ_prepared_evaluate (tgl sizes)"),
    ("prepared_query_nvidia", "prepared kernel occ_prepared_evaluate (NVIDIA)"),
    ("prepared_query_nvidia_vs_runtime", "prepared kernel occ_prepared_evaluate (NVIDIA)"),
    ("compact_query", "compact query occ_evaluate, one by one (tgl sizes)"),
    ("compact_query_columns", "  ... occ_evaluate_columns (tgl sizes)"),
    ("compact_query_nvidia", "compact query occ_evaluate (NVIDIA)"),
    ("compact_query_nvidia_vs_runtime", "compact query occ_evaluate (NVIDIA)"),
    ("compact_query_nvidia_columns", "  ... occ_evaluate_columns (NVIDIA)"),
    ("compact_query_mix", "compact query, random mix of all profiles"),
    ("compact_query_mix_columns", "  ... occ_evaluate_columns, one call per device"),
    ("compact_query_mix_grouped", "  ... the same kernels, one device after another"),
    ("compact_query_mix_launchable", "  ... without the kernels that cannot launch"),
    ("compact_query_mix_alternating", "  ... in alternation with the tgl sweep (ref: the sweep)"),
    ("compact_query_sweep", "compact query, tuner's sweep (tgl)"),
    ("compact_query_sweep_columns", "  ... occ_evaluate_columns"),
    ("compact_query_mix_columns_alternating", "columns, random mix, in alternation with the sweep's (ref)"),
    ("residency_query", "full report occ_residency_compute (tgl, WG sizes in turn)"),
    ("residency_query_batched", "residency query, batched (tgl)"),
    ("residency_query_vs_suggest_only", "residency query vs the suggest call alone"),
    ("residency_query_nvidia", "residency query, one by one (NVIDIA)"),
    ("residency_query_nvidia_batched", "residency query, batched (NVIDIA)"),
    ("residency_query_nvidia_vs_runtime", "residency query, one by one (NVIDIA)"),
    ("residency_query_nvidia_batched_vs_runtime", "residency query, batched (NVIDIA)"),
    ("residency_query_mix", "residency query, random mix of all profiles"),
    ("residency_query_mix_batched", "residency query, random mix, batched"),
    ("residency_query_mix_launchable", "residency query, random mix, launchable only"),
    ("residency_query_mix_launchable_batched", "  ... batched"),
    ("residency_query_sweep", "residency query, tuner's sweep (tgl)"),
    ("residency_query_sweep_batched", "  ... batched"),
    ("residency_query_mix_alternating", "residency query, random mix, in alternation with the sweep (ref)"),
    ("advise", "full advise, global (1024,1024,64), tgl"),
    ("evaluate_batch", "batch evaluation per configuration (tgl, random)"),
    ("phases_equal_1e9", "phases: 10^9 equal work-groups (tgl 320x8)"),
    ("phases_unequal_1e7", "phases: 10^7 unequal work-groups (uniform)"),
    ("phases_unequal_1e7_worst", "phases: 10^7 unequal work-groups (slowest model)"),
    ("kernels_open_1mb_cubin", "open a 1 MB cubin (450 kernels) and list them"),
    ("kernels_parse_1mb_cubin", "  ... the same bytes already in memory"),
    ("kernels_intel_zebin_ms", "open a 1 MB Intel zebin and list its kernels"),
    ("kernels_intel_patch_tokens_ms", "open a 1 MB Intel patch-token binary and list its kernels"),
    ("batch_csv_1e5", "occcalc batch, 10^5 configurations as CSV"),
    ("batch_jsonl_1e5", "occcalc batch, 10^5 configurations as JSON Lines"),
    ("occcalc_cold_run", "occcalc cold run, seed example"),
    ("occcalc_warm_run", "occcalc run (median of 20), seed example"),
    ("occcalc_peak_rss", "occcalc peak memory, seed example"),
    ("occcalc_spawn_median", "occcalc --json run, median"),
    ("occcalc_spawn_p90", "occcalc --json run, p90"),
    ("occcalc_spawn_cpu_median", "occcalc --json run, CPU"),
    ("occcalc_spawn_peak_rss", "occcalc --json peak memory"),
]
REFERENCES = {
    "ze_suggest_max_cooperative": "Intel driver: zeKernelSetGroupSize + SuggestMaxCooperativeGroupCount",
    "ze_suggest_only": "Intel driver: SuggestMaxCooperativeGroupCount, size unchanged",
    "cuda_occupancy": "CUDA driver API: cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudart_occupancy": "CUDA runtime API: cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "bin_true": "/bin/true started the same way",
    "file_read_only": "reading the same file alone (open, read, close)",
    "read_only_ms": "the same file read into memory, not parsed",
    "advise_one_by_one": "same search, one configuration at a time",
    "evaluate_one_by_one": "occ_residency_compute + occ_gpu_compute, one by one",
    "phases_per_wg_estimate": "event engine, work-group by work-group (est.)",
    "compact_one_by_one": "the same queries one by one (occ_evaluate)",
    "compact_query_sweep_alternating": "the tgl sweep, in alternation (occ_evaluate)",
    "residency_query_sweep_alternating": "the tgl sweep, in alternation (occ_residency_compute)",
    "compact_query_sweep_columns_alternating": "the tgl sweep as columns, in alternation",
    "spawn_per_line_estimate": "one occcalc per configuration (10^5 x the seed's median)",
}
# program -> (arguments, what it is for)
PROGRAMS = [
    ("bench_ze_reference", [], "residency vs the Intel driver"),
    ("bench_cuda_reference", [], "residency vs CUDA (needs an NVIDIA GPU)"),
    ("bench_residency", [], "residency query"),
    ("bench_advise", [], "full advise"),
    ("bench_phases", [], "phase simulation"),  # part 2 on 10^7 work-groups (target 0.1 s)
    ("bench_kernels", [], "open a 1 MB cubin and list its kernels"),
    ("bench_batch", [], "occcalc batch, 10^5 configurations"),
    ("bench_kernels_intel", [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels",
                                          "intel", "kernels.cl")], "1 MB Intel binary listed"),
]

BENCH_LINE = re.compile(r"^BENCH\t([^\t]+)\t([^\t]+)\t([^\t]+)(?:\t([^\t]+)\t([^\t]+))?\s*$")


def parse_bench_lines(text, source):
    rows = []
    for line in text.splitlines():
        m = BENCH_LINE.match(line)
        if m:
            key, value, unit, ref, ref_value = m.groups()
            rows.append({"key": key, "value": float(value), "unit": unit, "ref": ref,
                         "ref_value": float(ref_value) if ref_value else None, "source": source})
    return rows


# Adapters for programs that print their own format: text -> rows.  Each
# returns [] when it does not recognise the output (then nothing is made up).
# They read the first configuration of each section: the seed example (tgl,
# work-group 320, sub-group 8) for bench_phases, tgl for bench_advise.
NUM = r"([0-9.]+(?:e[+-]?[0-9]+)?)"


def row(key, value, unit, source, ref=None, ref_value=None):
    return {"key": key, "value": value, "unit": unit, "ref": ref, "ref_value": ref_value,
            "source": source}


def adapt_phases(text, source):
    rows = []
    section = None
    worst = None  # part 2: the slowest run of any configuration and duration model
    for line in text.splitlines():
        m = re.match(r"^(\d)\. .*?([0-9]+) work-groups", line)
        if m:
            section = (m.group(1), int(m.group(2)))
            continue
        if not section:
            continue
        if section[0] == "1" and line.startswith("   tgl wg 320 sg 8 ") and "barrier" not in line:
            # configuration, phases, CPU ms, wave model "X ms", per-WG est. "Y s"
            m = re.search(r"\s" + NUM + r"\s+" + NUM + r" ms\s+" + NUM + r" s\s", line)
            if m and section[1] == 10**9:
                rows.append(row("phases_equal_1e9", float(m.group(1)) * 1e6, "ns", source,
                                "phases_per_wg_estimate", float(m.group(3)) * 1e9))
        elif section[0] == "2" and section[1] == 10**7 and "(ref)" not in line:
            # configuration, durations, CPU s (best), worst, wall s, WGs/s, draws only, verdict
            m = re.search(r"\s" + NUM + r"\s+" + NUM + r"\s+" + NUM + r"\s+" + NUM +
                          r"\s+(?:\S+/s|-)\s+(?:ok|SLOWER)", line)
            if not m:
                continue
            best_s, worst_s = float(m.group(1)), float(m.group(2))
            worst = worst_s if worst is None else max(worst, worst_s)
            if line.startswith("   tgl wg 320 sg 8 ") and "barrier" not in line and "uniform" in line:
                rows.append(row("phases_unequal_1e7", best_s * 1e9, "ns", source))
    if worst is not None:
        rows.append(row("phases_unequal_1e7_worst", worst * 1e9, "ns", source))
    return rows


def adapt_advise(text, source):
    rows = []
    for line in text.splitlines():
        m = re.match(r"^\s+tgl\s.*best \d+\s+" + NUM + r" ms;.*\|\s*one by one.*\)\s+" + NUM + " ms", line)
        if m and not any(r["key"] == "advise" for r in rows):
            rows.append(row("advise", float(m.group(1)) * 1e6, "ns", source,
                            "advise_one_by_one", float(m.group(2)) * 1e6))
        m = re.match(r"^\s+tgl\s+random .*occ_evaluate_batch\s+" + NUM + r" M/s.*one by one\s+" + NUM + " M/s", line)
        if m:
            rows.append(row("evaluate_batch", 1e3 / float(m.group(1)), "ns", source,
                            "evaluate_one_by_one", 1e3 / float(m.group(2))))
    return rows


ADAPTERS = {"bench_phases": adapt_phases, "bench_advise": adapt_advise}


def run_program(path, args, timeout):
    start = time.monotonic()
    proc = subprocess.run([path] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout, env=dict(os.environ, LC_ALL="C"))
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), time.monotonic() - start


def measure_occcalc(build):
    """Cold run time and peak memory of the README's seed example, through
    bench_exec (a small C parent: see tests/bench/bench_exec.c)."""
    exe = os.path.join(build, "cli", "occcalc")
    helper = os.path.join(build, "tests", "bench", "bench_exec")
    if not os.access(exe, os.X_OK):
        return [], "occcalc not built"
    if not os.access(helper, os.X_OK):
        return [], "bench_exec not built: occcalc's run time and memory not measured"
    proc = subprocess.run([helper, "21", exe, "--wg", "320", "--sg", "8", "--groups", "8"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    got = dict(line.split() for line in out.splitlines() if len(line.split()) == 2)
    if proc.returncode != 0 or len(got) != 3:
        return [], "occcalc seed example: " + out.strip()
    rows = [
        {"key": "occcalc_cold_run", "value": float(got["cold_ns"]) / 1e6, "unit": "ms"},
        {"key": "occcalc_warm_run", "value": float(got["median_ns"]) / 1e6, "unit": "ms"},
        {"key": "occcalc_peak_rss", "value": float(got["peak_rss_kib"]), "unit": "KiB"},
    ]
    for r in rows:
        r.update(ref=None, ref_value=None, source="run.py")
    return rows, None


def fmt(value, unit):
    if value is None:
        return "-"
    if unit == "ns":  # pick the unit that keeps 3 significant digits readable
        for scale, name in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
            if value >= scale:
                return "%.3g %s" % (value / scale, name)
    if abs(value) >= 1000:
        return "%.0f %s" % (value, unit)
    return "%.3g %s" % (value, unit)


def fmt_ratio(x):
    # two significant digits below 1 (0.012x), never a bare "0.0x"
    return ("%.0fx" if x >= 100 else "%.1fx" if x >= 1 else "%.2gx") % x


def check_labels(root):
    """Every figure a benchmark program can print (bench_result's literal
    keys and reference names in tests/) has a label here: the table speaks
    the user's words, never a row's internal name.  Returns the exit code."""
    keys, refs = set(), set()
    call = re.compile(r'bench_result\(\s*"([a-z0-9_]+)"')
    literal_key = re.compile(r'measure\([^;]*?"(kernels_[a-z0-9_]+)"')
    for folder, _, files in os.walk(os.path.join(root, "tests")):
        for f in files:
            if f.endswith(".c"):
                text = open(os.path.join(folder, f), encoding="utf-8").read()
                keys.update(call.findall(text))
                keys.update(literal_key.findall(text))
                refs.update(re.findall(r'bench_result\([^;]*?"(?:ms|ns|us|s|KiB)",\s*"([a-z0-9_]+)"', text, re.S))
    labels = dict(LABELS)
    missing = sorted(k for k in keys if k not in labels) + sorted(r for r in refs if r not in REFERENCES)
    for m in missing:
        print("FAIL: the benchmark figure %r has no label in tests/bench/run.py" % m)
    # "issue 17" or a row's name (kernels_intel_zebin_ms); the library's own
    # function names (occ_evaluate) are words its users know
    words = [l for l in list(labels.values()) + list(REFERENCES.values())
             if re.search(r"issue \d", l) or any(not w.startswith("occ_") for w in re.findall(r"\b[a-z0-9]+_[a-z0-9_]+\b", l))]
    for w in words:
        print("FAIL: a label in an internal word: %r" % w)
    print("%d figures, %d references: %s" % (len(keys), len(refs), "ok" if not missing and not words else "FAIL"))
    return 1 if missing or words or not keys else 0


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %s, %d CPUs online, %s" % (platform.machine(), cpu, os.cpu_count() or 0,
                                            platform.node())


def targets(rows):
    """The speed targets (docs/performance.md), each as a ratio measured in this run: 'met' or
    'NOT met' with the figure and what it needs, or why it was not measured."""
    def get(key, ref=False):
        for r in rows:
            if r["key"] == key:
                return (r["ref_value"] if ref else r["value"]) or None
        return None

    def faster(key, need, what):
        occ, ref = get(key), get(key, ref=True)
        if not occ or not ref:
            return "%-44s not measured here (%s)" % (what, "needs an NVIDIA GPU" if "nvidia" in key
                                                      else "no reference in this run")
        x = ref / occ
        return "%-44s %s: %.1fx (needs >= %gx)" % (what, "met" if x >= need else "NOT met", x, need)

    def at_most(num_key, den_key, limit, what):
        num, den = get(num_key), get(den_key)
        if not num or not den:
            return "%-44s not measured here" % what
        x = num / den
        return "%-44s %s: %.2fx (needs <= %gx)" % (what, "met" if x <= limit else "NOT met", x, limit)

    def mix_vs_sweep(alternating, mix_key, sweep_key, what):
        # measured in alternation (the same state of the machine for both) when
        # bench_residency did so; else the two separate figures
        mix, sweep = get(alternating), get(alternating, ref=True)
        if not mix or not sweep:
            return at_most(mix_key, sweep_key, 1.3, what)
        x = mix / sweep
        return "%-44s %s: %.2fx (needs <= 1.3x; in alternation)" % (what, "met" if x <= 1.3 else "NOT met", x)

    # The vendors' calls answer one number; occ's compact query (occ_evaluate,
    # occ_eval) answers it and more, so the targets use it, one by one against
    # its own column batch.  The full report's ratios follow, for reference.
    # The vendors' calls take a loaded kernel (a CUfunction; a Level Zero
    # kernel whose group size is set) and a launch shape: the prepared kernel
    # is the same question, so it is compared first.
    lines = ["targets, ratios of this run (prepared kernel occ_prepared_evaluate, the vendors' shape):",
             "  " + faster("prepared_query_nvidia", 5, "NVIDIA query vs CUDA driver API"),
             "  " + faster("prepared_query_nvidia_vs_runtime", 10, "NVIDIA query vs CUDA runtime API"),
             "  " + faster("prepared_query", 40, "Intel query vs the Intel driver"),
             "the same, with the kernel described in full each time (compact query occ_evaluate, 24-byte occ_eval):",
             "  " + faster("compact_query_nvidia", 5, "NVIDIA query vs CUDA driver API"),
             "  " + faster("compact_query_nvidia_vs_runtime", 10, "NVIDIA query vs CUDA runtime API"),
             "  " + faster("compact_query", 40, "Intel query vs the Intel driver"),
             "  " + mix_vs_sweep("compact_query_mix_alternating", "compact_query_mix", "compact_query_sweep",
                                 "random mix of all profiles / tgl sweep"),
             "  " + mix_vs_sweep("compact_query_mix_columns_alternating", "compact_query_mix_columns",
                                 "compact_query_sweep_columns", "the same as columns (every column given)")]
    for batched, single, what in (("compact_query_columns", "compact_query", "columns / one by one (tgl sizes)"),
                                  ("compact_query_nvidia_columns", "compact_query_nvidia",
                                   "columns / one by one (NVIDIA)"),
                                  ("compact_query_mix_columns", "compact_query_mix",
                                   "columns / one by one (random mix)"),
                                  ("compact_query_sweep_columns", "compact_query_sweep",
                                   "columns / one by one (tgl sweep)")):
        lines.append("  " + at_most(batched, single, 0.5, what))
    lines.append("the same targets with the full report (occ_residency_compute, occ_residency_batch):")
    lines += ["  " + faster("residency_query_nvidia", 5, "NVIDIA query vs CUDA driver API"),
              "  " + faster("residency_query_nvidia_vs_runtime", 10, "NVIDIA query vs CUDA runtime API"),
              "  " + faster("residency_query", 40, "Intel query vs the Intel driver"),
              "  " + mix_vs_sweep("residency_query_mix_alternating", "residency_query_mix", "residency_query_sweep",
                                  "random mix of all profiles / tgl sweep")]
    for batched, single, what in (("residency_query_batched", "residency_query", "batch / one by one (tgl sizes)"),
                                  ("residency_query_nvidia_batched", "residency_query_nvidia",
                                   "batch / one by one (NVIDIA)"),
                                  ("residency_query_mix_batched", "residency_query_mix", "batch / one by one (random mix)")):
        lines.append("  " + at_most(batched, single, 0.5, what))
    ev, one = get("evaluate_batch"), get("evaluate_batch", ref=True)
    if ev and one:
        x = ev / one
        lines.append("  %-44s %s: %.2fx (needs <= 0.5x)" % ("occ_evaluate_batch / one by one (tgl)",
                                                           "met" if x <= 0.5 else "NOT met", x))
    lines.append("occcalc batch, wall time of the whole process on this machine:")
    for key, what in (("batch_csv_1e5", "10^5 configurations as CSV"),
                      ("batch_jsonl_1e5", "10^5 configurations as JSON Lines")):
        t = get(key)
        lines.append("  %-44s %s" % (what, "not measured here" if not t else "%s: %.3f s (needs < 1 s)"
                                     % ("met" if t < 1e9 else "NOT met", t / 1e9)))
    # an absolute target: bench_phases' slowest case, the worst of its runs
    worst = get("phases_unequal_1e7_worst")
    what = "phases, 10^7 unequal work-groups (slowest)"
    lines.append("phases, CPU time on this machine:")
    if worst:
        lines.append("  %-44s %s: %.3f s (needs <= 0.1 s in every case, worst of 3 runs)"
                     % (what, "met" if worst <= 1e8 else "NOT met", worst / 1e9))
    else:
        lines.append("  %-44s not measured here" % what)
    return lines


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check-labels":
        return check_labels(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the meson build directory")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--show-output", action="store_true", help="also print each program's own output")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per program (default 600)")
    opts = ap.parse_args()
    build = os.path.abspath(opts.build)

    rows, notes = [], []
    for name, args, what in PROGRAMS:
        path = os.path.join(build, "tests", "bench", name)
        if not os.access(path, os.X_OK):
            notes.append("%s (%s): not built in this build" % (name, what))
            continue
        try:
            rc, out, secs = run_program(path, args, opts.timeout)
        except subprocess.TimeoutExpired:
            notes.append("%s: stopped after %.0f s" % (name, opts.timeout))
            continue
        found = parse_bench_lines(out, name)
        if not found and name in ADAPTERS:
            found = ADAPTERS[name](out, name)
        if opts.show_output:
            print("---- %s (exit %d, %.1f s) ----\n%s" % (name, rc, secs, out.rstrip()))
        for line in out.splitlines():
            if "not available" in line:
                notes.append("%s: %s" % (name, line.strip()))
        if rc not in (0, 77):
            notes.append("%s: exit status %d (figures kept only if it printed them)" % (name, rc))
        if not found:
            notes.append("%s: printed no figures this runner can read" % name)
        rows += found
    occ_rows, why = measure_occcalc(build)
    rows += occ_rows
    if why:
        notes.append(why)

    order = {k: i for i, (k, _) in enumerate(LABELS)}
    labels = dict(LABELS)
    rows.sort(key=lambda r: (order.get(r["key"], len(order)), r["source"]))
    head = ("what", "occ", "reference (same run)", "reference", "ref / occ")
    table = []
    for r in rows:
        label = labels.get(r["key"], r["key"])
        ref = REFERENCES.get(r["ref"], r["ref"]) if r["ref"] else "-"
        ratio = fmt_ratio(r["ref_value"] / r["value"]) if r["ref_value"] and r["value"] else "-"
        table.append((label, fmt(r["value"], r["unit"]), ref,
                      fmt(r["ref_value"], r["unit"]) if r["ref_value"] else "-", ratio))

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("occ benchmarks, %s\nmachine: %s" % (now, machine()))
    if opts.markdown:
        print("\n| " + " | ".join(head) + " |\n|" + " --- |" * len(head))
        for t in table:
            print("| " + " | ".join(t) + " |")
        print()
    else:
        widths = [max(len(x[i]) for x in table + [head]) for i in range(len(head))]
        line = lambda t: "  ".join(s.ljust(w) if i in (0, 2) else s.rjust(w)
                                   for i, (s, w) in enumerate(zip(t, widths)))
        print(line(head))
        print("  ".join("-" * w for w in widths))
        for t in table:
            print(line(t))
    for n in notes:
        print("note: " + n)
    for line in targets(rows):
        print(line)
    spawn = {r["key"]: r for r in rows if r["key"] in ("occcalc_spawn_median", "occcalc_spawn_p90")
             and r.get("ref_value") is not None}
    if len(spawn) == 2:
        extra = {k: r["value"] - r["ref_value"] for k, r in spawn.items()}
        print("goal: occcalc --json within 0.5 ms of /bin/true started the same way: %s "
              "(median +%.2f ms, p90 +%.2f ms)"
              % ("met" if extra["occcalc_spawn_p90"] <= 0.5 else
                 "met by the median only" if extra["occcalc_spawn_median"] <= 0.5 else "NOT met",
                 extra["occcalc_spawn_median"], extra["occcalc_spawn_p90"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
