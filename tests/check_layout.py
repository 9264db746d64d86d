#!/usr/bin/env python3
"""The tree is the architecture (docs/architecture.md); this test keeps it so.

1. No two source files of libocc call each other, directly or round a longer
   loop: the call graph between object files (from `nm` over the archives) has
   no cycle.
2. The pure folders include nothing from the impure ones, nor libyaml/dlfcn.
3. The README's layout table names every folder of libocc/src that holds
   sources, and every folder it names exists.
4. The tests are arranged like the code: no test source at the top of tests/,
   and every folder of tests/ is in docs/testing.md's map ("Where the tests
   live"), which names only folders that exist and the code each one tests.
5. docs/architecture.md names every folder of the repository: each folder
   at the top or one below it, and each room of libocc/src/; deeper folders
   are covered by a named parent.  Every folder it names exists.
6. The vendor list is written in one place (libocc/meson.build; occ/vendors.h
   is generated from it): no source tests or names a vendor (OCC_VENDOR_*, or the
   profile words "intel" and "nvidia" as strings) outside libocc/src/arch/,
   the validation backends (each a driver of one vendor), the trace
   interposer's per-driver files, and the kernel readers, where a file may
   name one vendor only (its own).
7. The kernel readers sit below validation: nothing in libocc/src/kernels
   includes a header of libocc/src/validate (compiling through a driver is
   the compile/ service, which both use).
8. No occcalc command writes JSON itself: a command fills a result document
   (cli/doc.h) and the JSON renderer writes it, so no file of cli/ but the
   writer (json.c) and that renderer (render_json.c) includes json.h, calls
   json_*, or prints JSON punctuation ("\"key\":" in a string).

Usage: check_layout.py SOURCE_ROOT ARCHIVE...
"""
import collections
import os
import re
import subprocess
import sys

PURE = ("common", "model", "arch", "timeline", "advise")


def symbols(archives):
    """defined[symbol] = member; needs[member] = {symbols}."""
    defined, needs = {}, collections.defaultdict(set)
    for a in archives:
        out = subprocess.run(["nm", "-A", a], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            m = re.match(r"^[^:]+:([^:]+\.o):\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$", line)
            if not m:
                continue
            member, kind, sym = m.groups()
            if kind == "U":
                needs[member].add(sym)
            elif kind.isupper():
                defined[sym] = member
    return defined, needs


def cycles(edges):
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


TESTS_TOP = {"meson.build", "check_layout.py", "valgrind.supp"}


def test_layout(root):
    """Rule 4: tests/ arranged by layer, as docs/testing.md maps it."""
    failures = []
    tests = os.path.join(root, "tests")
    for f in sorted(os.listdir(tests)):
        if os.path.isfile(os.path.join(tests, f)) and f not in TESTS_TOP:
            failures.append(f"tests/{f} is at the top of tests/: put it in the folder of the layer "
                            "it tests (docs/testing.md, \"Where the tests live\")")
    doc = open(os.path.join(root, "docs", "testing.md"), encoding="utf-8").read()
    section = doc.split("## Where the tests live", 1)
    if len(section) != 2:
        return failures + ["docs/testing.md has no section \"Where the tests live\""], 0
    rows = re.findall(r"^\| `((?:python/)?tests/[^`]*/)` \| ([^|]+) \|", section[1].split("\n## ", 1)[0], re.M)
    mapped = {folder.rstrip("/") for folder, _ in rows}
    if not rows:
        failures.append("docs/testing.md's map of tests/ has no rows")
    for folder, code in rows:
        if not os.path.isdir(os.path.join(root, folder)):
            failures.append(f"docs/testing.md maps {folder}, which does not exist")
        named = re.findall(r"`([^`]+)`", code)
        if not named:
            failures.append(f"docs/testing.md maps {folder} to no code")
        for c in named:
            if not os.path.exists(os.path.join(root, c)):
                failures.append(f"docs/testing.md maps {folder} to {c}, which does not exist")
    for dirpath, dirs, files in os.walk(tests):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if rel == "tests" or not set(files) - {"meson.build"}:
            continue  # a folder that only includes its subfolders
        parts = rel.split("/")
        if not any("/".join(parts[:i]) in mapped for i in range(2, len(parts) + 1)):
            failures.append(f"{rel}/ is not in docs/testing.md's map of tests/ (\"Where the tests live\")")
    return failures, len(rows)


def repository_folders(root):
    """The folders that hold files git tracks or would track (not ignored),
    or every folder but build outputs and hidden ones when there is no git."""
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True)
    if out.returncode == 0 and out.stdout:
        files = out.stdout.splitlines()
    else:
        files = []
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if (not d.startswith(".") or d == ".ci") and d != "__pycache__"
                       and not os.path.exists(os.path.join(dirpath, d, "meson-private"))
                       and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))]
            files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
    folders = set()
    for f in files:
        parts = f.replace(os.sep, "/").split("/")[:-1]
        folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return folders


def architecture_layout(root):
    """Rule 5: docs/architecture.md names every folder."""
    doc = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    named = {n.rstrip("/") for n in re.findall(r"^\| `([^`]+/)` \|", doc, re.M)}
    failures = [f"docs/architecture.md names {n}/, which does not exist"
                for n in sorted(named) if not os.path.isdir(os.path.join(root, n))]
    for folder in sorted(repository_folders(root)):
        parts = folder.split("/")
        must_be_named = len(parts) <= 2 or (len(parts) == 3 and folder.startswith("libocc/src/"))
        covered = folder in named if must_be_named else any(
            "/".join(parts[:i]) in named for i in range(2, len(parts)))
        if not covered:
            failures.append(f"docs/architecture.md does not name {folder}/ (a row "
                            "\"| `" + folder + "/` | what it holds |\")")
    return failures, len(named)
VENDOR_FREE = ("libocc/src", "libocc/include", "cli", "python/src", "python/occ")
VENDOR_OWNERS = ("libocc/src/arch/", "libocc/src/validate/backends/", "libocc/include/occ/occ.h")
ONE_VENDOR_EACH = ("libocc/src/kernels/", "libocc/src/trace/")


def vendor_mentions(root):
    """Sources that test or name a vendor where only arch/ may."""
    failures = []
    token = re.compile(r'OCC_VENDOR_([A-Z0-9_]+)|"(intel|nvidia|amd)"')
    for top in VENDOR_FREE:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".py")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                if rel.startswith(VENDOR_OWNERS):
                    continue
                text = open(os.path.join(dirpath, f), encoding="utf-8", errors="replace").read()
                if f.endswith(".py"):
                    text = re.sub(r"#[^\n]*", "", text)
                else:
                    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
                names = {(a or b).lower() for a, b in token.findall(text)} - {"name"}
                if rel.startswith(ONE_VENDOR_EACH):
                    if len(names) > 1:
                        failures.append(f"{rel} names several vendors ({', '.join(sorted(names))}): "
                                        "a reader or tracer file serves one")
                elif names:
                    failures.append(f"{rel} names a vendor ({', '.join(sorted(names))}): ask arch/ "
                                    "(occ_vendor_words_of, occ_device_takes) instead")
    return failures


JSON_WRITING = (
    (re.compile(r'#include\s+"json\.h"'), "includes the JSON writer json.h"),
    (re.compile(r"\bjson_\w+\s*\("), "calls the JSON writer"),
    (re.compile(r'\\"\w+\\"\s*:'), "prints JSON punctuation"),
)


def command_json_writers(root):
    """Rule 7: the commands fill documents; only the JSON renderer writes JSON."""
    found = []
    cli = os.path.join(root, "cli")
    for f in sorted(os.listdir(cli)):
        if not f.endswith((".c", ".h")) or f in ("json.c", "json.h", "render_json.c"):
            continue
        text = open(os.path.join(cli, f), encoding="utf-8").read()
        for pattern, what in JSON_WRITING:
            m = pattern.search(text)
            if m:
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"cli/{f}:{line} {what}: a command fills a document (cli/doc.h)")
    return found


def main():
    root, archives = sys.argv[1], sys.argv[2:]
    failures = []
    defined, needs = symbols(archives)
    edges = collections.defaultdict(set)
    for member, syms in needs.items():
        for s in syms:
            other = defined.get(s)
            if other and other != member and "builtin_profiles" not in other:
                edges[member].add(other)
    for c in cycles(edges):
        failures.append("files call each other: " + " <-> ".join(c))

    src = os.path.join(root, "libocc", "src")
    for folder in PURE:
        for dirpath, _, files in os.walk(os.path.join(src, folder)):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                for inc in re.findall(r'#include [<"]([^>"]+)[>"]', text):
                    top = inc.split("/")[0]
                    if inc in ("yaml.h", "dlfcn.h") or (("/" in inc) and top not in PURE + ("occ",)):
                        failures.append(f"pure {folder}/{f} includes {inc}")

    failures += vendor_mentions(root)

    for dirpath, _, files in os.walk(os.path.join(src, "kernels")):
        for f in files:
            if f.endswith((".c", ".h")):
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                for inc in re.findall(r'#include [<"](validate/[^>"]+)[>"]', text):
                    failures.append(f"reader kernels/{f} includes {inc}: readers sit below "
                                    "validation (use compile/)")

    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    named = set(re.findall(r"^\| `(libocc/[^`]+)/` \|", readme, re.M))
    for dirpath, dirs, files in os.walk(src):
        rel = os.path.relpath(dirpath, root)
        if any(f.endswith(".c") for f in files):
            # a folder is covered when it or one of its parents is in the table
            parts = rel.split(os.sep)
            if not any("/".join(parts[:i]) in named for i in range(3, len(parts) + 1)):
                failures.append(f"README's layout table does not name {rel}/")
    for n in named:
        if not os.path.isdir(os.path.join(root, n)):
            failures.append(f"README's layout table names {n}/, which does not exist")

    test_failures, test_folders = test_layout(root)
    failures += test_failures
    arch_failures, arch_folders = architecture_layout(root)
    failures += arch_failures
    failures += command_json_writers(root)

    for f in failures:
        print("FAIL:", f)
    print(f"{len(edges)} files with calls, {len(named)} folders in the README, "
          f"{test_folders} test folders mapped, {arch_folders} folders in docs/architecture.md: "
          f"{'ok' if not failures else str(len(failures)) + ' problems'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
