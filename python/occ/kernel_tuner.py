"""occ for Kernel Tuner: prune a search space by predicted occupancy before
anything is compiled, and report occupancy as a metric.

    import kernel_tuner, occ
    from occ.kernel_tuner import restriction, metrics

    dev = occ.device("h100-sxm")
    keep = restriction(dev, min_occupancy=0.5, barrier=True,
                       slm="4 * block_size_y * tile_size_y * block_size_x * (1 + tile_size_x)")
    kernel_tuner.tune_kernel("matmul", src, size, args, tune_params,
                             restrictions=keep, metrics=metrics(dev, slm=keep.slm))

Kernel Tuner calls a restriction in one of three ways, by where it stands
and by its version: alone (``restrictions=keep``), with the dict of one
configuration's tune parameters (in a space of one parameter, 1.1 and later
pass its value alone: taken as the block size); in a list with other restrictions (strings,
functions, (function, names) tuples), with every parameter's value by position
in tune_params order (the search space, Kernel Tuner 1.1 and later) or by
keyword (util.check_restrictions, and the search space before 1.1).  The
function restriction() returns takes all three; the positional one needs the
parameters' names, which ``restriction(..., tune_params=tune_params)`` (or
``as_constraint(tune_params)``) gives it.  ``as_tuple(tune_params)`` is the
(function, parameter names) form.

How tune parameters become occ's inputs: the work-group (thread block) shape
is the product of the block size parameters (block_size_x/y/z by default,
Kernel Tuner's own names; missing ones are 1).  Every other input -- sg, slm,
barrier, grf, regs, carveout -- is a constant, the name of a tune parameter,
a Python expression over tune parameters (a string, as Kernel Tuner's own
restrictions), or a callable taking the parameter dict.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ._api import BatchResult, Device

Value = Union[int, bool, str, Callable[[Mapping[str, Any]], Any], None]

DEFAULT_BLOCK_SIZE_NAMES: Tuple[str, str, str] = ("block_size_x", "block_size_y", "block_size_z")

_ONE_DICT = inspect.Signature([inspect.Parameter("p", inspect.Parameter.POSITIONAL_OR_KEYWORD)])


def _getter(value: Value, what: str) -> Callable[[Mapping[str, Any]], Any]:
    """A function of the parameter dict giving one occ input."""
    if callable(value):
        return value
    if isinstance(value, str):
        code = compile(value, f"<occ {what} expression>", "eval")
        if value.isidentifier():
            return lambda p: p[value]
        return lambda p: eval(code, {"__builtins__": {}}, dict(p))
    return lambda p: value


class _Mapping:
    """Tune parameters -> occ's kernel inputs (shared by restriction and metrics)."""

    def __init__(self, dev: Device, block_size_names: Sequence[str], sg: Value, slm: Value,
                 barrier: Value, grf: Value, regs: Value, carveout: Value,
                 constraints: Optional[Mapping[str, Any]] = None):
        if not isinstance(dev, Device):
            raise TypeError(f"dev must be an occ.Device (occ.device(...)), not {type(dev).__name__}")
        if not 1 <= len(block_size_names) <= 3:
            raise ValueError("block_size_names must name 1 to 3 parameters")
        self.dev = dev
        self.block_size_names = tuple(block_size_names)
        self.slm = slm
        self._get = {name: _getter(v, name) for name, v in
                     (("sg", sg), ("slm", slm), ("barrier", barrier), ("grf", grf),
                      ("regs", regs), ("carveout", carveout))}
        # the kernel's own constraints (max_wg, reqd_wg, reqd_sg; AMD's sgprs and
        # cu_mode: a kernel file's residency_args carries them), constants for
        # every configuration
        self.constraints = {k: v for k, v in (constraints or {}).items() if v is not None}
        unknown = set(self.constraints) - {"max_wg", "reqd_wg", "reqd_sg", "sgprs", "cu_mode"}
        if unknown:
            raise TypeError(f"unknown kernel constraints: {', '.join(sorted(unknown))}")

    def kernel(self, p: Mapping[str, Any]) -> Dict[str, Any]:
        wg = tuple(int(p.get(n, 1)) for n in self.block_size_names)
        k = {name: get(p) for name, get in self._get.items()}
        k["barrier"] = bool(k["barrier"])
        for name in ("sg", "slm", "grf", "regs", "carveout"):
            if k[name] is not None:
                k[name] = int(k[name])
        k["slm"] = k["slm"] or 0
        return {"wg": wg, **k, **self.constraints}

    def residency(self, p: Mapping[str, Any]):
        return self.dev.residency(**self.kernel(p))

    def batch(self, configs: Sequence[Mapping[str, Any]]) -> BatchResult:
        ks = [self.kernel(p) for p in configs]
        n = len(ks)

        def col(name: str, dflt: int) -> np.ndarray:
            return np.fromiter((dflt if k[name] is None else int(k[name]) for k in ks),
                               dtype=np.int64, count=n)

        wg = np.array([k["wg"] + (1,) * (3 - len(k["wg"])) for k in ks],
                      dtype=np.int64).reshape(n, 3)
        return self.dev.residency_batch(
            wg[:, 0], wg_y=wg[:, 1], wg_z=wg[:, 2], sg=col("sg", 0), slm=col("slm", 0),
            barrier=col("barrier", 0), grf=col("grf", 0), regs=col("regs", 0),
            carveout=col("carveout", -1), **self.constraints)


class Restriction:
    """A Kernel Tuner restriction: True for configurations that occ predicts
    to launch with at least min_occupancy and min_resident work-groups per
    core.  Call it with a configuration's parameter dict."""

    def __init__(self, mapping: _Mapping, min_occupancy: float, min_resident: int):
        if not 0.0 <= min_occupancy <= 1.0:
            raise ValueError(f"min_occupancy must be in 0..1, got {min_occupancy!r}")
        if min_resident < 1:
            raise ValueError(f"min_resident must be at least 1, got {min_resident!r}")
        self.mapping = mapping
        self.min_occupancy = float(min_occupancy)
        self.min_resident = int(min_resident)

    @property
    def slm(self) -> Value:
        """The slm mapping it was given (to pass on to metrics())."""
        return self.mapping.slm

    def __call__(self, p: Mapping[str, Any]) -> bool:
        r = self.mapping.residency(p)
        return bool(r.launchable and r.resident_wgs >= self.min_resident
                    and r.occupancy >= self.min_occupancy)

    def keep(self, configs: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """The same answer for many configurations at once (one batch call):
        a bool array."""
        b = self.mapping.batch(configs)
        return b.launchable & (b.resident_wgs >= self.min_resident) & \
            (b.occupancy >= self.min_occupancy)

    def params_of(self, names: Optional[Sequence[str]], args: Tuple[Any, ...],
                  kwargs: Mapping[str, Any]) -> Mapping[str, Any]:
        """One configuration's parameters from any way Kernel Tuner calls a
        restriction: a dict, keywords, or values by position in names order."""
        if kwargs and not args:
            return kwargs
        if len(args) == 1 and not kwargs and isinstance(args[0], Mapping):
            return args[0]
        if names is not None and len(args) == len(names) and not kwargs:
            return dict(zip(names, args))
        if names is None and len(args) == 1 and not kwargs:
            # a search space of one parameter: Kernel Tuner passes its value alone (1.1 and
            # later, even to a restriction given alone); it is the block size
            return {self.mapping.block_size_names[0]: args[0]}
        if names is None:
            raise TypeError(
                f"the occ restriction was given {len(args)} value(s) by position, as Kernel Tuner does "
                "for a function in a list of restrictions: give restriction(..., tune_params=tune_params) "
                "(or use keep.as_constraint(tune_params)) so that occ knows their names")
        raise TypeError(f"the occ restriction was given {len(args)} value(s) by position for "
                        f"{len(names)} parameters ({', '.join(names)})")

    def as_constraint(self, param_names: Iterable[str]) -> Callable[..., bool]:
        """The restriction as a function of every tune parameter's value,
        positionally in param_names order (list(tune_params), as Kernel
        Tuner passes them), by keyword, or as one dict: the form for a list
        that mixes it with other restrictions, e.g. ``restrictions=["tile_x
        == tile_y", keep.as_constraint(tune_params)]``, or alone."""
        names = list(param_names)
        check = self

        def occ_restriction(*values: Any, **by_name: Any) -> bool:
            return check(check.params_of(names, values, by_name))

        return occ_restriction

    def as_tuple(self, param_names: Iterable[str]) -> Tuple[Callable[..., bool], Tuple[str, ...]]:
        """Kernel Tuner's (function, parameter names) form of a restriction."""
        names = tuple(param_names)
        return self.as_constraint(names), names

    def __repr__(self) -> str:
        return (f"occ.kernel_tuner.Restriction({self.mapping.dev.name}, min_occupancy="
                f"{self.min_occupancy}, min_resident={self.min_resident})")


def restriction(dev: Device, *, min_occupancy: float = 0.0, min_resident: int = 1,
                block_size_names: Sequence[str] = DEFAULT_BLOCK_SIZE_NAMES, sg: Value = None,
                slm: Value = 0, barrier: Value = False, grf: Value = None, regs: Value = None,
                carveout: Value = None, max_wg: Optional[int] = None, reqd_wg: Any = None,
                reqd_sg: Optional[int] = None,
                tune_params: Optional[Iterable[str]] = None) -> Callable[..., bool]:
    """A restriction for ``kernel_tuner.tune_kernel(..., restrictions=...)``.

    Keeps configurations that launch on dev with core occupancy >=
    min_occupancy (0..1) and >= min_resident work-groups per core.

    block_size_names: the tune parameters whose product is the work-group
        shape (Kernel Tuner's block_size_x/y/z by default)
    sg, slm, barrier, grf, regs, carveout: occ's inputs (see
        Device.residency); each a constant, a tune parameter's name, an
        expression over tune parameters ("4 * block_size_x * tile"), or a
        callable taking the parameter dict
    max_wg, reqd_wg, reqd_sg: the kernel's constraints (launch bounds,
        required work-group and sub-group sizes; ``occ.kernels(...)[name]
        .residency_args`` holds them): configurations outside them are
        dropped, as the driver refuses them
    tune_params: the tune parameters (a dict or their names, in order):
        needed only where Kernel Tuner passes values by position (the
        restriction in a list with others, Kernel Tuner 1.1 and later)

    Returns a plain function (Kernel Tuner reads the source of callables it
    is given and accepts functions, not callable objects) of one
    configuration: its parameter dict, its parameters by keyword, or their
    values by position (with tune_params); with attributes: ``keep(configs)``
    (the same answer for many configurations in one batch call, a bool
    array), ``as_constraint(tune_params)`` and ``as_tuple(tune_params)``
    (the forms for a list with other restrictions), ``restriction`` (the
    Restriction object), ``slm``.
    """
    check = Restriction(_Mapping(dev, block_size_names, sg, slm, barrier, grf, regs, carveout,
                                 {"max_wg": max_wg, "reqd_wg": reqd_wg, "reqd_sg": reqd_sg}),
                        min_occupancy, min_resident)
    names = None if tune_params is None else tuple(tune_params)

    def occ_restriction(*values: Any, **by_name: Any) -> bool:
        return check(check.params_of(names, values, by_name))

    # Kernel Tuner 1.1 and later pass the parameter dict to a restriction given alone only when
    # its signature has one parameter (else its values by position): say so
    occ_restriction.__signature__ = _ONE_DICT  # type: ignore[attr-defined]
    occ_restriction.__doc__ = f"{check!r}: True for configurations occ keeps."
    occ_restriction.restriction = check  # type: ignore[attr-defined]
    occ_restriction.keep = check.keep  # type: ignore[attr-defined]
    occ_restriction.as_constraint = check.as_constraint  # type: ignore[attr-defined]
    occ_restriction.as_tuple = check.as_tuple  # type: ignore[attr-defined]
    occ_restriction.slm = check.slm  # type: ignore[attr-defined]
    return occ_restriction


def metrics(dev: Device, *, block_size_names: Sequence[str] = DEFAULT_BLOCK_SIZE_NAMES,
            sg: Value = None, slm: Value = 0, barrier: Value = False, grf: Value = None,
            regs: Value = None, carveout: Value = None,
            prefix: str = "occ_") -> Dict[str, Callable[[Mapping[str, Any]], Any]]:
    """Metrics for ``tune_kernel(..., metrics=...)``: predicted occupancy (in
    percent), resident work-groups per core and the limiting resource of each
    configuration, keyed prefix + 'occupancy' / 'resident_wgs' / 'limiter'."""
    m = _Mapping(dev, block_size_names, sg, slm, barrier, grf, regs, carveout)
    return {
        prefix + "occupancy": lambda p: 100.0 * m.residency(p).occupancy,
        prefix + "resident_wgs": lambda p: m.residency(p).resident_wgs,
        prefix + "limiter": lambda p: m.residency(p).limiter or "cannot launch",
    }


def objective(dev: Device, **mapping: Any) -> Callable[[Mapping[str, Any]], float]:
    """A score to rank configurations before measuring them (higher is
    better): predicted core occupancy 0..1, 0 for what cannot launch.  Takes
    the same mapping keywords as restriction()."""
    m = _Mapping(dev, mapping.pop("block_size_names", DEFAULT_BLOCK_SIZE_NAMES),
                 mapping.pop("sg", None), mapping.pop("slm", 0), mapping.pop("barrier", False),
                 mapping.pop("grf", None), mapping.pop("regs", None), mapping.pop("carveout", None))
    if mapping:
        raise TypeError(f"objective() got unexpected keywords: {', '.join(sorted(mapping))}")
    return lambda p: float(m.residency(p).occupancy)
