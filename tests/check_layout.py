#!/usr/bin/env python3
"""The tree is the architecture (docs/architecture.md); this test keeps it so.

1. No two source files of libocc call each other, directly or round a longer
   loop: the call graph between object files (from `nm` over the archives) has
   no cycle.
2. The pure folders include nothing from the impure ones, nor libyaml/dlfcn.
3. The README's layout table names every folder of libocc/src that holds
   sources, and every folder it names exists.
4. The vendor list is written in one place (arch/meson.build's list, and
   occ.h's enum): no source tests or names a vendor (OCC_VENDOR_*, or the
   profile words "intel" and "nvidia" as strings) outside libocc/src/arch/,
   the validation backends (each a driver of one vendor), the trace
   interposer's per-driver files, and the kernel readers, where a file may
   name one vendor only (its own).

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


VENDOR_FREE = ("libocc/src", "libocc/include", "cli", "python/src", "python/occ")
VENDOR_OWNERS = ("libocc/src/arch/", "libocc/src/validate/backends/", "libocc/include/occ/occ.h")
ONE_VENDOR_EACH = ("libocc/src/kernels/", "libocc/src/trace/")


def vendor_mentions(root):
    """Sources that test or name a vendor where only arch/ may."""
    failures = []
    token = re.compile(r'OCC_VENDOR_([A-Z0-9_]+)|"(intel|nvidia)"')
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

    for f in failures:
        print("FAIL:", f)
    print(f"{len(edges)} files with calls, {len(named)} folders in the README: "
          f"{'ok' if not failures else str(len(failures)) + ' problems'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
