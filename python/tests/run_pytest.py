#!/usr/bin/env python3
"""Run the Python package's tests for `meson test` (suite 'python').

    run_pytest.py BUILD_PYTHON_DIR [pytest arguments...]
    run_pytest.py --not-built REASON

BUILD_PYTHON_DIR holds the built package (build/python/occ); it goes first
on sys.path.  Exit 77 (skipped) only when NumPy or pytest cannot be
imported; when they can and the extension was not built, that is a failure.
"""
import importlib.util
import os
import sys

SKIP = 77


def missing_modules():
    return [m for m in ("numpy", "pytest") if importlib.util.find_spec(m) is None]


def main(argv):
    missing = missing_modules()
    if argv[:1] == ["--not-built"]:
        reason = argv[1] if len(argv) > 1 else "unknown reason"
        if missing:
            print(f"SKIP: the Python package was not built ({reason}); "
                  f"{' and '.join(missing)} not installed (apt-get install python3-numpy "
                  "python3-pytest python3-dev)")
            return SKIP
        print(f"FAIL: NumPy and pytest are installed but the Python package was not built: "
              f"{reason}.  Install python3-dev (or configure with -Dpython=enabled to see why).")
        return 1
    if missing:
        print(f"SKIP: {' and '.join(missing)} not installed "
              "(apt-get install python3-numpy python3-pytest)")
        return SKIP
    build_dir = argv[0]
    sys.path.insert(0, build_dir)
    os.environ["PYTHONPATH"] = build_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
    import pytest
    # The tests must use the package under build_dir, not an installed one.
    import occ
    where = os.path.dirname(os.path.abspath(occ.__file__))
    if os.path.realpath(where) != os.path.realpath(os.path.join(build_dir, "occ")):
        print(f"FAIL: imported occ from {where}, not from {build_dir}")
        return 1
    return pytest.main(["-p", "no:cacheprovider"] + argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
