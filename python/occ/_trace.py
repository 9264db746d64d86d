"""occ.trace: the launch records of `occcalc trace` (or of any program run
with the interposer) read back, grouped per kernel and launch configuration,
and predicted by libocc (occ/trace.h; docs/trace.md)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional, Tuple, Union

from . import _occ
from ._api import Device, PathLike

Dims = Tuple[int, int, int]


@dataclass(frozen=True)
class TraceConfig:
    """One launch configuration of a kernel and its prediction.

    ``prediction`` is None without a device profile; else a dict with
    ``launchable``, ``reason`` (why not), ``sub_group``,
    ``local_memory_bytes``, ``resident_wgs``, ``occupancy``, ``limited_by``
    (resource names), ``waves`` and ``waves_average_occupancy`` (None when the
    grid is unknown) and ``next_step`` (words, or None)."""
    work_group: Dims
    dynamic_local_bytes: int
    grid: Optional[Dims]            #: None: an indirect launch (counts in device memory)
    cluster: Dims
    launches: int
    outside_bound: bool             #: outside what the compiled kernel allows (launch bound, required sizes)
    prediction: Optional[Dict[str, Any]]
    driver_resident_blocks: Optional[int]  #: CUDA: the driver's answer, when it did not vary
    gpu_time_ns: Optional[int]
    gpu_executions: int
    #: CUDA, a launch in clusters: occ's clusters at once (None: not in clusters, or no GPC data)
    max_active_clusters: Optional[int] = None
    #: a core's occupancy in the launch in clusters, under the cluster cap (None as above)
    cluster_occupancy: Optional[float] = None
    #: the driver's cuOccupancyMaxActiveClusters asked during the run, when it did not vary
    driver_max_active_clusters: Optional[int] = None


@dataclass(frozen=True)
class TraceKernel:
    """A kernel of the trace (equal name and resources across processes)."""
    name: str
    api: str                        #: "level_zero" or "cuda"
    profile: Optional[str]          #: the device profile its predictions use
    resources: Dict[str, Any]       #: as the driver reported them
    launches: int
    refused_launches: int
    launches_outside_bound: int     #: of its configurations outside the kernel's bound
    work_group_sizes: int
    grids: int
    gpu_time_ns: Optional[int]
    gpu_executions: int
    next_step: Optional[str]        #: of its most launched configuration
    configurations: Tuple[TraceConfig, ...]


@dataclass(frozen=True)
class Trace:
    """A trace: its processes, the device profiles chosen, the totals (launches,
    threads, ``dropped`` launches the processes could not record and why,
    ``unreadable_lines``), the kernels in report order (most GPU time, then
    most launches) and every launch record (``configuration`` indexes the
    kernels' configurations taken in order; None: kernel never seen created)."""
    path: str
    processes: Tuple[Dict[str, Any], ...]
    devices: Tuple[Dict[str, Any], ...]
    totals: Dict[str, Any]
    kernels: Tuple[TraceKernel, ...]
    launches: Tuple[Dict[str, Any], ...]

    def __len__(self) -> int:
        return len(self.kernels)

    def __iter__(self) -> Iterator[TraceKernel]:
        return iter(self.kernels)

    def __getitem__(self, key: Union[int, str]) -> TraceKernel:
        """By position, or by the kernel's name (the first of that name)."""
        if isinstance(key, str):
            for k in self.kernels:
                if k.name == key:
                    return k
            raise KeyError(f"{self.path}: no kernel named {key!r}")
        return self.kernels[key]


def trace(path: PathLike, device: Union[Device, str, None] = None) -> Trace:
    """Read a trace: a record directory (``occcalc trace --records DIR``) or
    one record file.  ``device`` (an occ.Device or a profile name) predicts
    every kernel on that profile; None chooses the built-in profile that fits
    each traced device.  Raises occ.OccError with the library's message."""
    if isinstance(device, str):
        device = Device(device)
    d = _occ._read_trace(os.fspath(path), device)
    kernels = tuple(TraceKernel(**{**k, "configurations": tuple(TraceConfig(**c) for c in k["configurations"])})
                    for k in d["kernels"])
    return Trace(path=os.fspath(path), processes=d["processes"], devices=d["devices"],
                 totals=d["totals"], kernels=kernels, launches=d["launches"])
