"""The Python-level parts of occ: Device, its batch, phases, advise and bounds
results.  The model itself is libocc's, reached through occ._occ."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _occ

#: Names of the resources that can limit residency, by index (bit i of a
#: ``limited_by`` mask is RESOURCES[i]).
RESOURCES: Tuple[str, ...] = _occ._name_table("resource")
#: Why a kernel cannot launch, by reason code (0 = launchable).
REASONS: Tuple[str, ...] = _occ._name_table("reason")

Shape = Union[int, Sequence[int]]
PathLike = Union[str, "os.PathLike[str]"]

_ORDERS = {None: 0, "device": 0, "pack": 1, "spread": 2}
_PARTIAL = {None: 0, "device": 0, "no": 1, "launch": 2, "always": 3}
_BARRIER_SPLIT = {"wait": 0, "never": 1}
_MERGE = {"contexts": 0, "none": 1}
_THRESHOLD_ON = {"core": 0, "gpu": 1}
_ADVISE_ORDER = {"rank": 0, "size": 1}
_AXES = {"wg": 0, "slm": 1, "regs": 2, "grf": 3, "sg": 4}
_UNKNOWN = {"sg": 1, "slm": 2, "regs": 4, "barrier": 8, "carveout": 16}


def _choice(table: dict, value: Any, name: str) -> int:
    try:
        return table[value]
    except (KeyError, TypeError):
        names = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{name} must be one of {names}, got {value!r}") from None


def _usable_cpus() -> int:
    """The CPUs this process may run on (its affinity), at most 64."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(n, 64))


def _reqd_shape(reqd_wg: Any) -> Tuple[Any, Any, Any]:
    """A required work-group size as the batch's three columns: 0 for none,
    missing dimensions 1, as the scalar call reads it."""
    if reqd_wg is None:
        return 0, 0, 0
    dims = tuple(reqd_wg) if isinstance(reqd_wg, (tuple, list)) else (reqd_wg,)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"reqd_wg must have 1 to 3 dimensions, got {len(dims)}")
    x, y, z = dims + (1,) * (3 - len(dims))
    return x, y, z


@dataclass(frozen=True)
class BatchResult:
    """Residency of many kernels at once (Device.residency_batch).

    Every field is a NumPy array of the broadcast shape of the inputs.  A
    kernel that cannot launch has resident_wgs 0, occupancy 0, limited_by 0
    and its reason code in ``reason`` (``occ.REASONS[code]`` in words).
    """

    resident_wgs: np.ndarray       #: uint32, work-groups per core
    occupancy: np.ndarray          #: float64, core occupancy 0..1
    contexts_per_wg: np.ndarray    #: uint32, ceil(W / S)
    contexts_per_core: np.ndarray  #: uint32, in the GRF mode used
    limited_by: np.ndarray         #: uint8 mask, bit i = occ.RESOURCES[i] binds
    reason: np.ndarray             #: uint8 reason code, 0 when launchable
    #: uint64, clusters resident at once (residency_batch(cluster=...)); None without cluster=
    max_active_clusters: Optional[np.ndarray] = None
    #: float64, a core's occupancy in the launch in clusters, under the cluster cap
    #: (Residency.cluster_occupancy); None without cluster=
    cluster_occupancy: Optional[np.ndarray] = None
    #: what cooperative_max is computed from when it is first read
    _cooperative_inputs: Tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @cached_property
    def cooperative_max(self) -> np.ndarray:
        """uint64, the most work-groups one cooperative launch may have, as the
        driver counts them (Residency.cooperative_max); 0 when it cannot
        launch.  Computed on first read, so a batch that never asks does not
        pay for it."""
        device, barrier, slm = self._cooperative_inputs
        return device._cooperative_max_batch(self.resident_wgs, self.contexts_per_wg,
                                             self.contexts_per_core, barrier, slm)

    @property
    def launchable(self) -> np.ndarray:
        """bool array: the kernel can launch."""
        return self.reason == 0

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.occupancy.shape

    def limiter(self) -> np.ndarray:
        """The first binding resource's name per kernel ('' when it cannot launch)."""
        names = np.array([""] + [RESOURCES[(m & -m).bit_length() - 1] for m in range(1, 32)])
        return names[self.limited_by & 31]


@dataclass(frozen=True)
class Timeline:
    """Occupancy over time as work-groups dispatch, run and retire
    (Device.phases; docs/phases.md).  One entry per phase in each column;
    times in units of one work-group's duration."""

    start: np.ndarray                 #: float64
    end: np.ndarray                   #: float64
    work_groups_resident: np.ndarray  #: uint64, work-groups resident in the phase
    thread_contexts: np.ndarray       #: uint64, busy thread contexts on the GPU
    occupancy: np.ndarray             #: float64, thread_contexts / contexts_total
    cores_busy: np.ndarray            #: uint32, cores with a busy context
    core_contexts: Optional[np.ndarray]     #: (phases, cores) uint32 with lanes=True
    core_work_groups: Optional[np.ndarray]  #: (phases, cores) uint32 with lanes=True
    n_phases: int
    cores: int
    contexts_total: int
    work_groups: int
    phases_average_occupancy: float   #: time-weighted over the run as the device dispatches
    run_start: float
    run_end: float
    busy_context_time: float
    peak_thread_contexts: int
    peak_core_work_groups: int
    contexts_per_core: int
    contexts_per_work_group: int
    resident_work_groups: int
    admit_limit: int
    order: str                        #: 'pack' or 'spread'
    partial: str                      #: 'no', 'launch' or 'always'
    barrier: bool
    extrapolated: bool

    def __len__(self) -> int:
        return int(self.start.shape[0])


@dataclass(frozen=True)
class Config:
    """One configuration the advisor ranked (Device.advise)."""

    rank: int
    is_best: bool
    wg: Tuple[int, int, int]      #: a shape of this size (largest last dimension)
    shapes: int                   #: shapes of this size that fit the request
    wg_size: int
    sg: int
    grf: int
    slm: int
    work_groups: int
    resident_wgs: int
    contexts_per_wg: int
    contexts_per_core: int
    contexts_used: int
    limited_by_mask: int
    cluster_capped: bool          #: in clusters: the cluster cap holds resident_wgs (limited_by empty)
    occupancy: float
    lane_utilization: float
    waves_average_occupancy: float
    intel_calculator_occupancy: float
    waves: int
    last_wave_work_groups: int
    last_wave_occupancy: float
    score: float
    slm_limit: int
    why: str
    explanation: str              #: one line, as `occcalc advise` prints it

    @property
    def limited_by(self) -> Tuple[str, ...]:
        return tuple(n for i, n in enumerate(RESOURCES) if self.limited_by_mask >> i & 1)


@dataclass(frozen=True)
class AdviseSummary:
    """How the advisor's search went; when nothing is valid, why."""

    shapes: int
    sizes: int
    sub_groups: int
    grf_modes: int
    configurations: int
    launchable: int
    matching: int
    failed: str          #: 'ok', or the stage that ruled everything out
    launch_reason: str
    best_value: float
    message: str


@dataclass(frozen=True)
class Advice:
    """Device.advise's answer: ranked configurations and the search summary."""

    configs: list = field(default_factory=list)  #: list[Config], best first (or size order)
    summary: Optional[AdviseSummary] = None

    @property
    def best(self) -> Optional[Config]:
        return next((c for c in self.configs if c.is_best), None)

    def __iter__(self):
        return iter(self.configs)

    def __len__(self) -> int:
        return len(self.configs)


@dataclass(frozen=True)
class Bounds:
    """Minimum and maximum residency over every value of the unknown inputs
    (Device.bounds).  occupancy_max below a target proves no value reaches it."""

    always_launchable: bool
    never_launchable: bool
    resident_min: int
    resident_max: int
    occupancy_min: float
    occupancy_max: float
    waves_average_occupancy_min: float
    waves_average_occupancy_max: float
    waves_min: int
    waves_max: int
    best: dict
    worst: dict
    evaluations: int


@dataclass(frozen=True)
class Sweep:
    """One input varied over a range (Device.sweep): NumPy columns, one entry
    per point.  GPU figures where has_gpu (a work-group count is known)."""

    axis: str
    x: np.ndarray                  #: uint64, the input's value
    launchable: np.ndarray         #: bool
    reason: np.ndarray             #: uint8 reason code (occ.REASONS)
    resident_wgs: np.ndarray       #: uint32
    contexts_per_wg: np.ndarray    #: uint32
    contexts_per_core: np.ndarray  #: uint32
    limited_by: np.ndarray         #: uint8 mask (occ.RESOURCES)
    occupancy: np.ndarray          #: float64, per core
    has_gpu: np.ndarray            #: bool
    work_groups: np.ndarray        #: uint64
    waves: np.ndarray              #: uint64
    waves_average_occupancy: np.ndarray  #: float64, time-weighted over the waves

    def __len__(self) -> int:
        return int(self.x.shape[0])


@dataclass(frozen=True)
class Limits:
    """The inverse view (Device.limits): runs of input values with the same
    residency.  Values lo..hi of the axis give resident_wgs work-groups per
    core (0: cannot launch, reason says why); for local memory and registers
    hi is the most the kernel may use and keep that residency."""

    axis: str
    lo: np.ndarray            #: uint64
    hi: np.ndarray            #: uint64
    resident_wgs: np.ndarray  #: uint32
    reason: np.ndarray        #: uint8 reason code when resident_wgs is 0
    limited_by: np.ndarray    #: uint8 mask at hi
    occupancy_lo: np.ndarray  #: float64, per core at lo
    occupancy_hi: np.ndarray  #: float64, per core at hi

    def __len__(self) -> int:
        return int(self.lo.shape[0])


class Device(_occ.Device):
    """A GPU described by a device profile: ``occ.device("tgl")`` or a YAML path.

    Scalar queries (``residency``) return occ.Residency; ``residency_batch``
    evaluates NumPy arrays in one call; ``phases``, ``advise`` and ``bounds``
    are the dispatch simulator, the advisor and the bounds for unknown inputs.
    A Device is immutable and may be shared between threads.
    """

    def __copy__(self) -> "Device":
        """A Device is immutable: its copy is itself."""
        return self

    def __deepcopy__(self, memo: dict) -> "Device":
        """A Device is immutable: its copy is itself (Kernel Tuner deep-copies restrictions)."""
        return self

    def __reduce__(self):
        """Pickling reopens the profile by built-in name or file path."""
        origin = self.origin
        spec = self.name if origin.startswith("<builtin:") else origin
        return (type(self), (spec,))

    @cached_property
    def info(self) -> dict:
        """Everything the profile says, as a dict (see describe())."""
        return self.describe()

    @property
    def product(self) -> str:
        return self.info["product"]

    @property
    def vendor(self) -> str:
        """'intel' or 'nvidia'."""
        return self.info["vendor"]

    @property
    def cores(self) -> int:
        return self.info["cores"]

    @property
    def sub_group_sizes(self) -> list:
        return list(self.info["sub_group_sizes"])

    @property
    def max_work_group_size(self) -> int:
        return self.info["max_work_group_size"]

    def residency_batch(self, wg: npt.ArrayLike, *, wg_y: npt.ArrayLike = 1,
                        wg_z: npt.ArrayLike = 1, sg: npt.ArrayLike = 0, slm: npt.ArrayLike = 0,
                        barrier: npt.ArrayLike = False, grf: npt.ArrayLike = 0,
                        regs: npt.ArrayLike = 0, carveout: npt.ArrayLike = -1,
                        cluster: Optional[npt.ArrayLike] = None, cluster_non_portable: bool = False,
                        max_wg: npt.ArrayLike = 0, reqd_wg: Optional[Shape] = None,
                        reqd_sg: npt.ArrayLike = 0, sgprs: npt.ArrayLike = 0,
                        cu_mode: npt.ArrayLike = False, threads: Optional[int] = None) -> BatchResult:
        """Residency of many kernels: integer arrays that broadcast together.

        wg, wg_y, wg_z: work-group size per dimension (wg alone: 1-D sizes)
        sg: sub-group size, 0 = the smallest supported
        slm: local memory per work-group, bytes
        barrier: bool or 0/1
        grf: Intel GRF registers per thread, 0 = default mode
        regs: NVIDIA registers per thread, 0 = unknown (not limiting)
        carveout: NVIDIA carveout preference in percent, -1 = default
        cluster: NVIDIA 9.0+: blocks per thread-block cluster (x * y * z); the
            result's max_active_clusters is then the clusters resident at once
            (docs/clusters.md).  cluster_non_portable: sizes up to the
            device's non-portable maximum.  A device without GPC data raises
            occ.OccError, a size out of range ValueError.

        max_wg, reqd_sg: the kernel's launch bound and required sub-group size
            (0 = none), arrays that broadcast with the rest; reqd_wg: its
            required work-group size, one shape for every row (an int or 1
            to 3 ints, each of which may also be such an array; None = none).
            A row outside them cannot launch, its reason naming the bound, as
            in ``residency``; the column batch checks them with the rest.
        sgprs, cu_mode: AMD: scalar registers per wave (0 = unknown) and
            compiled for CU mode (bool or 0/1), arrays that broadcast
        threads: how many threads share a large batch (each takes at least
            65536 configurations), default the CPUs this process may use

        The same numbers as ``residency`` one by one (libocc's column batch,
        occ_evaluate_columns, the GIL released).  Values out of range
        (negative, too large) raise ValueError; arrays that are not integers
        (floats, NaN, objects) raise TypeError.
        """
        if threads is None:
            threads = _usable_cpus()
        # six results, then the barrier and local memory as the batch read them
        res = self._residency_batch(wg, wg_y, wg_z, sg, slm, barrier, grf, regs, carveout,
                                    max_wg, *_reqd_shape(reqd_wg), reqd_sg, sgprs, cu_mode, threads)
        out, (coop_barrier, coop_slm) = res[:6], res[6:]
        clusters = in_clusters = None
        if cluster is not None:
            sizes = np.asarray(cluster)
            if not np.issubdtype(sizes.dtype, np.integer):
                raise TypeError(f"cluster must be integers (blocks per cluster), not {sizes.dtype!r}")
            resident, sizes = np.broadcast_arrays(out[0], sizes)
            clusters, held = self._max_active_clusters_batch(resident, sizes, bool(cluster_non_portable))
            # the library's formula: the contexts the held work-groups use over the core's
            in_clusters = (held.astype(np.uint64) * out[2]) / np.maximum(out[3], 1)
        # cooperative_max is read later, from the batch's read-only copies of its inputs
        return BatchResult(*out, max_active_clusters=clusters, cluster_occupancy=in_clusters,
                           _cooperative_inputs=(self, coop_barrier, coop_slm))

    def phases(self, wg: Shape, work_groups: int, *, sg: Optional[int] = None, slm: int = 0,
               barrier: bool = False, grf: Optional[int] = None, regs: Optional[int] = None,
               carveout: Optional[int] = None, order: Optional[str] = None,
               partial: Optional[str] = None, barrier_split: str = "wait",
               durations: Union[None, Sequence[float], Tuple[Any, ...]] = None,
               merge: str = "contexts", lanes: bool = False,
               max_phases: Optional[int] = None, cluster: Union[None, int, Sequence[int]] = None,
               cluster_non_portable: bool = False) -> Timeline:
        """Simulate the dispatch of work_groups work-groups (docs/phases.md).

        order: None (the profile's), 'pack' or 'spread'
        partial: None (the profile's), 'no', 'launch' or 'always'
        barrier_split: 'wait' (parts wait at the barrier) or 'never'
        durations: None (all equal), a list of durations (cycled in dispatch
            order), ('uniform', a, b[, seed]) or ('normal', mean, sd[, seed])
        merge: 'contexts' (a phase while busy contexts stay the same) or 'none'
        lanes: also return per-core columns (core_contexts, core_work_groups)
        max_phases: more phases than this raise occ.OccError (default 100000)
        cluster: a launch in thread-block clusters of this shape: the clusters
            are placed in GPCs (docs/clusters.md); cluster_non_portable as for
            residency

        A kernel that cannot launch raises occ.OccError with the reason.
        """
        kind: int = 0
        values: Optional[list] = None
        a = b = 0.0
        seed: Any = 0
        if durations is None:
            pass
        elif isinstance(durations, tuple) and durations and isinstance(durations[0], str):
            if durations[0] not in ("uniform", "normal") or len(durations) not in (3, 4):
                raise ValueError("durations must be ('uniform', a, b[, seed]) or "
                                 f"('normal', mean, sd[, seed]), got {durations!r}")
            kind = 2 if durations[0] == "uniform" else 3
            a, b = float(durations[1]), float(durations[2])
            seed = durations[3] if len(durations) == 4 else 0
        else:
            kind, values = 1, list(durations)
        d = self._phases(wg, work_groups, sg=sg, slm=slm, barrier=barrier, grf=grf, regs=regs,
                         carveout=carveout, order=_choice(_ORDERS, order, "order"),
                         partial=_choice(_PARTIAL, partial, "partial"),
                         barrier_split=_choice(_BARRIER_SPLIT, barrier_split, "barrier_split"),
                         durations=kind, duration_values=values, a=a, b=b, seed=seed,
                         merge=_choice(_MERGE, merge, "merge"), lanes=bool(lanes),
                         max_phases=max_phases, cluster=cluster, cluster_non_portable=cluster_non_portable)
        return Timeline(**d)

    def advise(self, *, global_size: Optional[Shape] = None, work_groups: Optional[int] = None,
               wg_fixed: Optional[Sequence[int]] = None, wg_multiple: int = 0, wg_min: int = 0,
               wg_max: int = 0, full_sub_groups: bool = False,
               sub_groups: Optional[Sequence[int]] = None, grf: int = 0, regs: int = 0,
               slm: int = 0, slm_per_item: int = 0, barrier: bool = False,
               carveout: Optional[int] = None, threshold: float = 0.0,
               threshold_on: str = "core", order: str = "rank", limit: int = 10,
               cluster: Union[None, int, Sequence[int]] = None,
               cluster_non_portable: bool = False) -> Advice:
        """Search, rank and explain work-group configurations (docs/advisor.md).

        global_size: 1-3 D global size (the work-group shape must divide it), or
        work_groups: a fixed work-group count (1-D), or neither (per-core only)
        wg_fixed: fixed dimensions, 0 = free, e.g. (0, 0, 1)
        wg_multiple, wg_min, wg_max: work-group size constraints (0 = none)
        full_sub_groups: only sizes that are multiples of the sub-group size
        sub_groups: allowed sub-group sizes (None: every supported one)
        grf: registers per thread the kernel needs (every GRF mode with as many)
        regs: NVIDIA registers per thread; slm + slm_per_item x work-items:
            local memory per work-group; barrier; carveout
        threshold: > 0: every configuration reaching it (0..1), on threshold_on
            'core' or 'gpu' occupancy, instead of the best `limit`
        order: 'rank' (best first) or 'size'
        cluster: a launch in thread-block clusters of this shape (1 to 3 ints):
            each configuration is judged under the cluster cap, its GPU figures
            in waves of clusters (docs/clusters.md); cluster_non_portable as
            for residency

        A contradictory request raises occ.OccError with the advisor's message;
        when nothing is valid, the answer is empty and summary.message says why.
        """
        if isinstance(global_size, int):
            global_size = (global_size,)
        entries, summary = self._advise(
            global_size=global_size, work_groups=work_groups, wg_fixed=wg_fixed,
            wg_multiple=wg_multiple, wg_min=wg_min, wg_max=wg_max,
            full_sub_groups=bool(full_sub_groups), sub_groups=sub_groups, grf=grf, regs=regs,
            slm=slm, slm_per_item=slm_per_item, barrier=bool(barrier), carveout=carveout,
            threshold=float(threshold), threshold_on=_choice(_THRESHOLD_ON, threshold_on,
                                                              "threshold_on"),
            order=_choice(_ADVISE_ORDER, order, "order"), limit=limit,
            cluster=(cluster,) if isinstance(cluster, int) else cluster,
            cluster_non_portable=bool(cluster_non_portable))
        return Advice([Config(**e) for e in entries], AdviseSummary(**summary))

    def bounds(self, wg: Shape, *, unknown: Sequence[str] = (), sg: Optional[int] = None,
               slm: int = 0, barrier: bool = False, grf: Optional[int] = None,
               regs: Optional[int] = None, carveout: Optional[int] = None,
               slm_range: Optional[Tuple[int, int]] = None,
               regs_range: Optional[Tuple[int, int]] = None,
               sub_groups: Optional[Sequence[int]] = None,
               work_groups: Optional[int] = None) -> Bounds:
        """Residency bounds when some inputs are not known yet (before compiling).

        unknown: any of 'sg', 'slm', 'regs', 'barrier', 'carveout'
        slm_range, regs_range: (min, max) of the unknown SLM / registers
            (default: 0 .. the device's maximum)
        sub_groups: candidate sub-group sizes when 'sg' is unknown
        work_groups: also bound the GPU occupancy over a run of this many
        """
        if isinstance(unknown, str):
            unknown = (unknown,)
        bits = 0
        for u in unknown:
            bits |= _choice(_UNKNOWN, u, "unknown")
        smin, smax = slm_range if slm_range is not None else (0, 0)
        rmin, rmax = regs_range if regs_range is not None else (0, 0)
        d = self._bounds(wg, sg=sg, slm=slm, barrier=barrier, grf=grf, regs=regs,
                         carveout=carveout, unknown=bits, slm_min=smin, slm_max=smax,
                         regs_min=rmin, regs_max=rmax, sub_groups=sub_groups,
                         work_groups=work_groups)
        return Bounds(**d)


    def _sweep_args(self, axis: str, start: int, stop: int, work_items: Optional[int],
                    work_groups: Optional[int]) -> int:
        code = _choice(_AXES, axis, "axis")
        has_regs = self.info["has_register_file"]
        if axis == "regs" and not has_regs:
            raise ValueError(f"axis 'regs': {self.name} has no register-file limit "
                             "(Intel devices: sweep 'grf')")
        if axis == "grf" and has_regs:
            raise ValueError(f"axis 'grf': {self.name} has no GRF modes (NVIDIA devices: sweep 'regs')")
        if stop and start > stop:
            raise ValueError(f"start {start} is above stop {stop}")
        if work_items and work_groups:
            raise ValueError("give work_items or work_groups, not both")
        return code

    def sweep(self, axis: str, wg: Shape = 1, *, start: int = 0, stop: int = 0, step: int = 0,
              sg: Optional[int] = None, slm: int = 0, barrier: bool = False,
              grf: Optional[int] = None, regs: Optional[int] = None,
              carveout: Optional[int] = None, slm_per_item: int = 0,
              work_items: Optional[int] = None, work_groups: Optional[int] = None) -> Sweep:
        """Vary one input of a kernel over [start, stop] (`occcalc sweep`).

        axis: 'wg' (work-group size, 1-D), 'slm' (bytes), 'regs' (NVIDIA),
            'grf' (Intel GRF modes) or 'sg' (supported sub-group sizes); the
            kernel's own value of that input is replaced at each point
        stop: 0 = the device's maximum; step: 0 = the axis's natural points
            (every allocation step or mode; the sub-group size for 'wg')
        slm_per_item: on the 'wg' axis, local memory grows by this per work-item
        work_items (global size product) or work_groups: GPU figures too
        """
        code = self._sweep_args(axis, start, stop, work_items, work_groups)
        d = self._sweep(code, wg, sg=sg, slm=slm, barrier=barrier, grf=grf, regs=regs,
                        carveout=carveout, start=start, stop=stop, step=step,
                        slm_per_item=slm_per_item, work_items=work_items,
                        work_groups=work_groups)
        return Sweep(axis=axis, **d)

    def limits(self, axis: str, wg: Shape = 1, *, start: int = 0, stop: int = 0,
               sg: Optional[int] = None, slm: int = 0, barrier: bool = False,
               grf: Optional[int] = None, regs: Optional[int] = None,
               carveout: Optional[int] = None, slm_per_item: int = 0) -> Limits:
        """Every value of one input in [start, stop], merged into runs with the
        same residency (`occcalc limits`): e.g. how much local memory keeps 3
        work-groups per core.  Same axes as sweep(); stop 0 = the maximum."""
        code = self._sweep_args(axis, start, stop, None, None)
        d = self._limits(code, wg, sg=sg, slm=slm, barrier=barrier, grf=grf, regs=regs,
                         carveout=carveout, start=start, stop=stop,
                         slm_per_item=slm_per_item)
        return Limits(axis=axis, **d)


def device(name_or_path: Union[PathLike, None] = None) -> Device:
    """Open a device: a built-in profile's name ('tgl', 'h100-sxm', ... see
    occ.builtin_devices()) or the path of a YAML profile (anything with a '/'
    or ending in .yaml/.yml, or an os.PathLike).  None: the default ('tgl').

    Raises occ.OccError with libocc's message (unknown device, unreadable
    file, malformed YAML with file:line:column and key)."""
    return Device(name_or_path)


@dataclass(frozen=True)
class KernelInfo:
    """One kernel of a compiled file, as its compiler built it (occ.kernels).

    Fields the file does not state are None.  ``residency_args`` holds the
    keywords for Device.residency and friends that follow from it (sub-group
    = the compiled SIMD width, GRF mode, registers, static local memory,
    barrier); add the work-group size (``reqd_wg`` when the kernel requires
    one) and any dynamic local memory yourself::

        k = occ.kernels("app.cubin")[0]
        dev.residency(256, **k.residency_args)
    """
    name: str       # demangled when the file holds a C++ mangled name
    mangled: str    # as the file spells it (the same as name when not mangled)
    vendor: str
    format: str
    target: str
    simd: Optional[int]
    required_sub_group: Optional[int]
    grf: Optional[int]
    regs: Optional[int]
    static_slm: Optional[int]
    slm_args: Optional[int]
    barriers: Optional[int]
    max_wg_size: Optional[int]
    private_bytes: Optional[int]
    spill_bytes: Optional[int]
    reqd_wg: Optional[Tuple[int, int, int]]
    # AMD: VGPRs a wave allocates per work-item (AGPRs included), AGPRs, SGPRs
    # per wave, registers spilled, a stack of unknown size, WGP (else CU) mode
    vgprs: Optional[int]
    agprs: Optional[int]
    sgprs: Optional[int]
    vgpr_spills: Optional[int]
    sgpr_spills: Optional[int]
    dynamic_stack: Optional[bool]
    wgp_mode: Optional[bool]
    residency_args: dict = field(repr=False)


@dataclass(frozen=True)
class KernelFile:
    """The kernels of a file (occ.kernels): its format, the reader's note
    (which fatbin member was taken, ...) and one KernelInfo per kernel."""
    path: str
    format: str
    note: str
    kernels: Tuple[KernelInfo, ...]

    def __len__(self) -> int:
        return len(self.kernels)

    def __iter__(self):
        return iter(self.kernels)

    def __getitem__(self, key: Union[int, str]) -> KernelInfo:
        """By position, or by a name the kernel answers to: mangled, demangled,
        or short ("heavy"; docs/kernels.md).  A short name several kernels
        share raises KeyError listing them."""
        if isinstance(key, str):
            for k in self.kernels:
                if key in (k.name, k.mangled):
                    return k
            found = [k for k in self.kernels if _occ._kernel_name_matches(k.name, k.mangled, key)]
            if len(found) == 1:
                return found[0]
            if found:
                raise KeyError(f"{self.path}: {key!r} names {len(found)} kernels: "
                               f"{'; '.join(k.name + ' [' + k.mangled + ']' for k in found)}")
            raise KeyError(f"{self.path}: no kernel named {key!r} "
                           f"(kernels: {', '.join(k.name for k in self.kernels)})")
        return self.kernels[key]


def kernels(path: PathLike, device: Union[Device, str, None] = None) -> KernelFile:
    """Read the kernels of a compiled file: cubin, fatbin, PTX (needs ptxas),
    Intel zebin or patch-token binary, SPIR-V or OpenCL C (need the Intel
    driver); docs/kernels.md.  ``device`` (an occ.Device or a profile name)
    is the target: it picks a fatbin's SASS and the Intel product to compile
    for.  Raises occ.OccError with the library's message."""
    if isinstance(device, str):
        device = Device(device)
    fmt, note, infos = _occ._read_kernels(os.fspath(path), device)
    return KernelFile(path=os.fspath(path), format=fmt, note=note,
                      kernels=tuple(KernelInfo(**d) for d in infos))
