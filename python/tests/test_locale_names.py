"""Numbers and names whatever the host program's locale and bytes: profiles
parse under a comma-decimal locale, and a kernel name that is not UTF-8
raises occ.OccError, never a bare UnicodeDecodeError (docs/python.md)."""
import locale
import os
import subprocess
import sys

import pytest

import occ

ROOT = os.environ.get("OCC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
CUBIN = os.path.join(ROOT, "tests", "data", "kernels", "nvidia", "kernels_sm90.cubin")
# h100-pcie.yaml states core_interval_per_context_ns: 3.5, a decimal fraction
PROFILE = os.path.join(ROOT, "devices", "h100-pcie.yaml")

# Tried in this order; else any locale `locale -a` lists whose decimal point is ','.
COMMA_LOCALES = ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8")


def comma_locale():
    """A locale this machine has whose decimal point is ',', or None."""
    names = list(COMMA_LOCALES)
    try:
        names += subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    except OSError:
        pass
    saved = locale.setlocale(locale.LC_NUMERIC)
    try:
        for name in names:
            try:
                locale.setlocale(locale.LC_NUMERIC, name)
            except locale.Error:
                continue
            if locale.localeconv()["decimal_point"] == ",":
                return name
    finally:
        locale.setlocale(locale.LC_NUMERIC, saved)
    return None


def test_profile_numbers_under_comma_locale():
    name = comma_locale()
    if name is None:
        msg = "no comma-decimal locale on this machine (localedef -i de_DE -f UTF-8 de_DE.UTF-8)"
        if os.environ.get("OCC_TEST_REQUIRE_COMMA_LOCALE") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    # In a child: setlocale(LC_ALL) is process-wide and would touch the other tests.
    script = f"""
import locale, occ
locale.setlocale(locale.LC_ALL, {name!r})
assert locale.localeconv()["decimal_point"] == ","
from_file = occ.device({PROFILE!r}).describe()
builtin = occ.device("h100-pcie").describe()
differ = sorted(k for k in builtin if k not in ("origin",) and from_file.get(k) != builtin[k])
assert not differ, differ
# the dispatch timing (nanoseconds, 3.5 among them) shapes the timeline
t_file = occ.device({PROFILE!r}).phases(256, 2000, regs=64, durations=[1e-6])
t_builtin = occ.device("h100-pcie").phases(256, 2000, regs=64, durations=[1e-6])
assert t_file.n_phases == t_builtin.n_phases and t_file.run_end == t_builtin.run_end
assert list(t_file.start) == list(t_builtin.start)
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # the built occ first
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_kernel_name_not_utf8(tmp_path):
    data = open(CUBIN, "rb").read()
    assert data.count(b"k_spill") > 1  # the symbol and its sections' names
    bad = tmp_path / "latin1.cubin"
    bad.write_bytes(data.replace(b"k_spill", b"k_sp\xffll"))
    with pytest.raises(occ.OccError) as e:
        occ.kernels(bad)
    assert e.value.status == "OCC_ERR_PARSE"
    assert "k_sp\\xffll" in str(e.value) and "UTF-8" in str(e.value)
