"""Bad input raises Python exceptions carrying libocc's message; nothing
crashes the interpreter (docs/python.md, "Errors")."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import occ


@pytest.fixture(scope="module")
def tgl():
    return occ.device("tgl")


def test_unknown_device():
    with pytest.raises(occ.OccError) as e:
        occ.device("no-such-gpu")
    assert e.value.status == "OCC_ERR_NOT_FOUND"
    assert "no-such-gpu" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_file(tmp_path):
    with pytest.raises(occ.OccError) as e:
        occ.device(str(tmp_path / "missing.yaml"))
    assert e.value.status == "OCC_ERR_IO" and "missing.yaml" in str(e.value)
    with pytest.raises(occ.OccError):
        occ.device(tmp_path)  # a directory


def test_malformed_yaml(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("schema: 1\nname: [unclosed\n")
    with pytest.raises(occ.OccError) as e:
        occ.device(p)
    assert e.value.status == "OCC_ERR_PARSE"
    assert str(e.value).startswith(str(p) + ":") and e.value.line >= 2


def test_schema_error_names_the_key(tmp_path):
    text = occ.builtin_yaml("tgl").replace("  count: 6\n", "  count: 6\n  bogus_key: 1\n")
    p = tmp_path / "schema.yaml"
    p.write_text(text)
    with pytest.raises(occ.OccError) as e:
        occ.device(p)
    assert e.value.status == "OCC_ERR_SCHEMA" and "bogus_key" in str(e.value)
    assert e.value.line > 0 and e.value.file == str(p)


def test_value_error_in_profile(tmp_path):
    p = tmp_path / "value.yaml"
    p.write_text(occ.builtin_yaml("tgl").replace("  count: 6\n", "  count: 0\n"))
    with pytest.raises(occ.OccError) as e:
        occ.device(p)
    assert e.value.status == "OCC_ERR_VALUE" and "core.count" in str(e.value)


@pytest.mark.parametrize("spec", [3, 2.5, b"tgl", ["tgl"], "t\0gl"])
def test_device_argument_types(spec):
    with pytest.raises((TypeError, ValueError)):
        occ.device(spec)


@pytest.mark.parametrize("kw,exc,msg", [
    ({"wg": 2.5}, TypeError, "wg must be an integer, not float"),
    ({"wg": math.nan}, TypeError, "wg must be an integer"),
    ({"wg": "320"}, TypeError, "wg must be an integer"),
    ({"wg": None}, TypeError, "wg"),
    ({"wg": (1, 2, 3, 4)}, ValueError, "1 to 3 dimensions"),
    ({"wg": ()}, ValueError, "1 to 3 dimensions"),
    ({"wg": -1}, ValueError, "wg must be in 0..4294967295, got -1"),
    ({"wg": 2**32}, ValueError, "wg must be in 0..4294967295"),
    ({"wg": 2**200}, ValueError, "wg must be in"),
    ({"wg": (8, -8)}, ValueError, "wg\\[1\\]"),
    ({"wg": 64, "sg": -16}, ValueError, "sg must be in"),
    ({"wg": 64, "sg": float("nan")}, TypeError, "sg must be an integer"),
    ({"wg": 64, "slm": -1}, ValueError, "slm must be in"),
    ({"wg": 64, "slm": 2**64}, ValueError, "slm must be in"),
    ({"wg": 64, "slm": 1e3}, TypeError, "slm must be an integer"),
    ({"wg": 64, "barrier": 2}, ValueError, "barrier"),
    ({"wg": 64, "barrier": "yes"}, TypeError, "barrier must be a bool"),
    ({"wg": 64, "carveout": -2}, ValueError, "carveout must be in -1.."),
    ({"wg": 64, "regs": -5}, ValueError, "regs must be in"),
    ({"wg": 64, "grf": 1.0}, TypeError, "grf must be an integer"),
    ({"wg": 64, "bogus": 1}, TypeError, "unexpected keyword argument 'bogus'"),
])
def test_residency_bad_arguments(tgl, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        tgl.residency(**kw)


def test_residency_argument_shape(tgl):
    with pytest.raises(TypeError, match="positionally"):
        tgl.residency(64, 16)
    with pytest.raises(TypeError, match="multiple values"):
        tgl.residency(64, wg=64)
    with pytest.raises(TypeError, match="required"):
        tgl.residency(sg=16)


@pytest.mark.parametrize("kw,exc,msg", [
    ({"wg": np.array([64.0, 128.0])}, TypeError, "wg must be an array of integers"),
    ({"wg": np.array([64, np.nan])}, TypeError, "wg must be an array of integers"),
    ({"wg": [64, "x"]}, TypeError, "wg must be an array of integers"),
    ({"wg": np.array([64, None], dtype=object)}, TypeError, "array of integers"),
    ({"wg": [64, -1]}, ValueError, "wg contains -1: must be in 0..4294967295"),
    ({"wg": [64, 2**40]}, ValueError, "wg contains 1099511627776"),
    ({"wg": np.array([64, 2**64 - 1], dtype=np.uint64)}, ValueError,
     "wg contains 18446744073709551615"),
    ({"wg": 64, "slm": np.array([2**63 + 5], dtype=np.uint64)}, ValueError, "slm contains"),
    ({"wg": 64, "sg": [8, 16.5]}, TypeError, "sg must be an array of integers"),
    ({"wg": 64, "barrier": [0, 2]}, ValueError, "barrier contains 2"),
    ({"wg": 64, "carveout": [-3]}, ValueError, "carveout contains -3"),
    ({"wg": np.zeros(3, np.int64), "sg": np.zeros(4, np.int64)}, ValueError, "broadcast"),
])
def test_batch_bad_arguments(tgl, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        tgl.residency_batch(**kw)


def test_batch_error_after_many_good_values(tgl):
    # The bad value sits in the third chunk of the batch: still an exception.
    chunk = occ._occ._BATCH_CHUNK
    wg = np.full(3 * chunk, 64)
    wg[2 * chunk + 7] = -7
    with pytest.raises(ValueError, match="-7"):
        tgl.residency_batch(wg)


@pytest.mark.parametrize("name,lo,hi", [
    ("wg", 0, 2**32 - 1), ("wg_y", 0, 2**32 - 1), ("wg_z", 0, 2**32 - 1), ("sg", 0, 2**32 - 1),
    ("slm", 0, 2**63 - 1), ("barrier", 0, 1), ("grf", 0, 2**32 - 1), ("regs", 0, 2**32 - 1),
    ("carveout", -1, 2**31 - 1), ("max_wg", 0, 2**32 - 1), ("reqd_sg", 0, 2**32 - 1),
    ("sgprs", 0, 2**32 - 1), ("cu_mode", 0, 1)])
def test_batch_range_edges(tgl, name, lo, hi):
    # Each operand's first and last accepted value, and one past each end
    # (as int64 where it fits, as uint64 past it), also among good values.
    kw = {"wg": 64} if name != "wg" else {}
    for good in (lo, hi):
        tgl.residency_batch(**kw, **{name: np.array([good, good], dtype=np.int64)})
    for bad in (lo - 1, hi + 1):
        dtype = np.uint64 if bad >= 2**63 else np.int64
        arr = np.array([lo, hi, bad, lo], dtype=dtype) if bad >= 0 else \
            np.array([lo, hi, bad, lo], dtype=np.int64)
        with pytest.raises(ValueError, match=f"{name} contains {bad}: must be in {lo}..{hi}"):
            tgl.residency_batch(**kw, **{name: arr})


def test_batch_names_the_first_bad_value_in_order(tgl):
    # Row by row, then operand (wg, wg_y, wg_z, sg, slm, barrier, grf, regs,
    # carveout): the error names the first, whichever column it is in.
    wg = np.full(5000, 64)
    sg = np.full(5000, 16)
    barrier = np.zeros(5000, np.int64)
    wg[4500], sg[4200], barrier[4100] = -1, -2, 3
    with pytest.raises(ValueError, match="barrier contains 3"):
        tgl.residency_batch(wg, sg=sg, barrier=barrier)
    barrier[4100] = 0
    with pytest.raises(ValueError, match="sg contains -2"):
        tgl.residency_batch(wg, sg=sg, barrier=barrier)
    sg[4500] = -3
    sg[4200] = 16
    with pytest.raises(ValueError, match="wg contains -1"):
        tgl.residency_batch(wg, sg=sg, barrier=barrier)


def test_phases_errors(tgl):
    with pytest.raises(occ.OccError) as e:
        tgl.phases(640, 10)
    assert e.value.status == "OCC_ERR_UNSUPPORTED" and "512" in str(e.value)
    with pytest.raises(occ.OccError) as e:
        tgl.phases(64, 0)
    assert e.value.status == "OCC_ERR_VALUE"
    with pytest.raises(occ.OccError) as e:
        tgl.phases(64, 100, durations=[1.0, -1.0])
    assert e.value.status == "OCC_ERR_VALUE"
    with pytest.raises(occ.OccError) as e:
        tgl.phases(64, 100, durations=[1.0, math.nan])
    with pytest.raises(occ.OccError) as e:
        tgl.phases(64, 10**6, durations=("uniform", 0.5, 1.5), max_phases=10)
    assert e.value.status == "OCC_ERR_TOO_LARGE"
    with pytest.raises(ValueError, match="order must be one of"):
        tgl.phases(64, 10, order="sideways")
    with pytest.raises(ValueError, match="durations"):
        tgl.phases(64, 10, durations=("poisson", 1, 2))
    with pytest.raises(TypeError):
        tgl.phases(64, 10, durations=["a"])


@pytest.mark.parametrize("durations", [("uniform", math.nan, 1.0), ("normal", 1.0, math.inf),
                                       ("uniform", 2.0, 1.0), [math.inf], [0.0]])
def test_bad_durations_carry_the_library_message(tgl, durations):
    with pytest.raises(occ.OccError, match="durations") as e:
        tgl.phases(64, 100, durations=durations)
    assert e.value.status == "OCC_ERR_VALUE" and e.value.key == "durations"


@pytest.mark.parametrize("threshold", [math.nan, math.inf, -0.5])
def test_bad_threshold(tgl, threshold):
    with pytest.raises(occ.OccError, match="threshold must be between 0 and 100 %"):
        tgl.advise(global_size=(1024,), threshold=threshold)


def test_undecodable_path_in_message(tmp_path):
    bad = os.fsencode(tmp_path) + b"/caf\xe9.yaml"
    with pytest.raises(occ.OccError) as e:
        occ.device(os.fsdecode(bad))
    assert e.value.status == "OCC_ERR_IO" and "caf" in str(e.value)


def test_advise_errors(tgl):
    with pytest.raises(occ.OccError) as e:
        tgl.advise(wg_min=256, wg_max=64)
    assert e.value.status == "OCC_ERR_INVALID_ARGUMENT" and "64" in str(e.value)
    with pytest.raises(occ.OccError) as e:
        tgl.advise(global_size=(1024,), work_groups=8)
    assert e.value.status == "OCC_ERR_INVALID_ARGUMENT"
    with pytest.raises(occ.OccError):
        tgl.advise(threshold=1.5)
    with pytest.raises(ValueError, match="global_size"):
        tgl.advise(global_size=(0,))
    with pytest.raises(ValueError):
        tgl.advise(sub_groups=list(range(1, 20)))
    # Nothing valid is an answer, not an error: the summary says why.
    a = tgl.advise(global_size=(7,), sub_groups=[16], full_sub_groups=True)
    assert len(a) == 0 and a.summary.failed != "ok" and a.summary.message


def test_bounds_errors(tgl):
    with pytest.raises(ValueError, match="unknown must be one of"):
        tgl.bounds(64, unknown=["colour"])
    with pytest.raises(occ.OccError) as e:
        tgl.bounds(64, unknown=["slm"], slm_range=(4096, 1024))
    assert e.value.status == "OCC_ERR_INVALID_ARGUMENT"


def test_fuzzed_calls_never_crash():
    """A child interpreter throws thousands of random bad arguments at every
    entry point; it must exit normally (a crash would be a signal)."""
    code = r'''
import random, math, numpy as np, occ
random.seed(7)
vals = [None, -1, 0, 1, 2**31, 2**32, 2**63, 2**64, -2**63, 2.5, math.nan, math.inf, "x", b"y",
        [], [1], [1, 2, 3, 4], (0, 0, 0), {}, object(), True, np.int64(-3), np.float32(1),
        np.array([1, 2]), np.array([[1], [2]]), np.array([], dtype=np.int64)]
devs = [occ.device(n) for n in ("tgl", "h100-sxm", "max-1550")]
names = ["sg", "slm", "barrier", "grf", "regs", "carveout"]
calls = 0
for i in range(4000):
    d = random.choice(devs)
    kw = {n: random.choice(vals) for n in random.sample(names, random.randint(0, 3))}
    wg = random.choice(vals + [64, 256, (16, 16)])
    for fn in (lambda: d.residency(wg, **kw), lambda: d.residency_batch(wg, **kw),
               lambda: d.phases(wg, random.choice(vals + [10]), **kw),
               lambda: d.bounds(wg, unknown=random.choice([(), ("sg",), ("slm", "regs")]), **kw),
               lambda: d.advise(global_size=random.choice(vals), slm=random.choice(vals)),
               lambda: d.residency(64).gpu(random.choice(vals)),
               lambda: d.sweep(random.choice(["wg", "slm", "sg", "x"]), wg, start=random.choice(vals),
                               step=random.choice(vals + [64]), **kw),
               lambda: d.limits(random.choice(["wg", "slm", "regs", "grf"]), wg, **kw)):
        try:
            fn()
        except (TypeError, ValueError, OverflowError, occ.OccError):
            pass
        calls += 1
print("calls", calls)
'''
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "calls 32000" in p.stdout
