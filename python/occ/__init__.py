"""occ: predict and explain GPU occupancy (Intel Xe-cores, NVIDIA SMs).

Python binding of libocc (docs/python.md)::

    >>> import occ
    >>> dev = occ.device("tgl")
    >>> r = dev.residency(320, sg=8)
    >>> r.resident_wgs, round(r.occupancy, 3), r.limiter
    (2, 0.714, 'threads')
    >>> r.next_steps[0].text
    'reduce the work-group size to 296 work-items or less: 3 work-groups per Xe-core, 99.1 %'

Batches over NumPy arrays: ``dev.residency_batch(wg=np.arange(1, 513), sg=16)``.
Dispatch phases: ``dev.phases(320, work_groups=8, sg=8)``.  Advisor:
``dev.advise(global_size=(1024, 1024))``.  Kernel Tuner: ``occ.kernel_tuner``.
Compiled kernels: ``occ.kernels("app.cubin")`` (resources read from the file).
Traces: ``occ.trace("records/")`` (``occcalc trace --records``: launches per
kernel and configuration, predicted).
Errors from the library raise occ.OccError (a ValueError) with its message.
"""
from ._occ import (NO_LIMIT, NextStep, OccError, Residency, Waves, builtin_devices,
                   builtin_yaml, library_version)
from ._api import (REASONS, RESOURCES, Advice, AdviseSummary, BatchResult, Bounds, Config,
                   Device, KernelFile, KernelInfo, Limits, Sweep, Timeline, device, kernels)
from ._trace import Trace, TraceConfig, TraceKernel, trace

__version__ = library_version()

for _cls in (Device, KernelFile, KernelInfo, Trace, TraceKernel, TraceConfig, BatchResult, Timeline, Advice, AdviseSummary, Config, Bounds, Sweep, Limits):
    _cls.__module__ = __name__  # help() and repr() name them occ.X
del _cls

__all__ = [
    "device", "Device", "Residency", "NextStep", "Waves", "BatchResult", "Timeline", "Advice",
    "AdviseSummary", "Config", "Bounds", "Sweep", "Limits", "OccError", "builtin_devices", "builtin_yaml",
    "library_version", "kernels", "KernelFile", "KernelInfo", "trace", "Trace", "TraceKernel", "TraceConfig", "RESOURCES", "REASONS", "NO_LIMIT", "__version__",
]
