# Type stubs for occ._occ, the C extension (python/src/).
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union
import os

NO_LIMIT: int
API_VERSION: int
_BATCH_CHUNK: int

class OccError(ValueError):
    status: str
    file: str
    line: int
    column: int
    key: str
    message: str

class NextStep(Tuple[Any, ...]):
    input: str
    value: int
    at_most: bool
    resident_wgs: int
    occupancy: float
    text: str

class Waves(Tuple[Any, ...]):
    work_groups: int
    contexts_needed: int
    contexts_total: int
    wave_capacity: int
    waves: int
    full_waves: int
    full_wave_occupancy: float
    last_wave_work_groups: int
    last_wave_occupancy: float
    waves_average_occupancy: float
    intel_calculator_occupancy: float

class Residency:
    launchable: bool
    reason: Optional[str]
    reason_code: int
    occupancy: float
    resident_wgs: int
    sub_group: int
    grf: int
    wg: Tuple[int, int, int]
    wg_size: int
    slm: int
    barrier: bool
    contexts_per_wg: int
    contexts_per_core: int
    contexts_used: int
    contexts_idle: int
    limiter: Optional[str]
    limited_by: Tuple[str, ...]
    limited_by_mask: int
    limits: Dict[str, Optional[int]]
    next_steps: List[NextStep]
    slm_per_wg_alloc: int
    slm_core_config: int
    regs_per_wg_alloc: int
    cooperative_max: int
    max_active_clusters: Optional[int]
    device: "Device"
    def gpu(self, work_groups: Optional[int] = ..., *,
            global_size: Optional[Sequence[int]] = ...) -> Waves: ...

class Device:
    name: str
    origin: str
    def __init__(self, name_or_path: Union[str, "os.PathLike[str]", None] = ...) -> None: ...
    def residency(self, wg: Union[int, Sequence[int]], *, sg: Optional[int] = ...,
                  slm: Optional[int] = ..., barrier: Optional[bool] = ...,
                  grf: Optional[int] = ..., regs: Optional[int] = ...,
                  carveout: Optional[int] = ..., max_wg: Optional[int] = ...,
                  reqd_wg: Union[None, int, Sequence[int]] = ...,
                  reqd_sg: Optional[int] = ...,
                  cluster: Union[None, int, Sequence[int]] = ...,
                  cluster_non_portable: bool = ..., sgprs: Optional[int] = ...,
                  cu_mode: Optional[bool] = ...) -> Residency: ...
    def describe(self) -> Dict[str, Any]: ...
    def slm_limit(self, wg: Union[int, Sequence[int]], min_resident: int = ..., *,
                  sg: Optional[int] = ..., barrier: bool = ..., grf: Optional[int] = ...,
                  regs: Optional[int] = ..., carveout: Optional[int] = ...) -> Optional[int]: ...
    def cuda_block_size(self, *, slm: Union[int, Callable[[int], int]] = ...,
                        static_slm: int = ..., regs: Optional[int] = ...,
                        barrier: bool = ..., carveout: Optional[int] = ...,
                        block_limit: int = ..., max_threads: int = ...) -> Dict[str, Any]: ...
    def _residency_batch(self, *arrays: Any) -> Tuple[Any, ...]: ...
    def _cooperative_max_batch(self, *arrays: Any) -> Any: ...
    def _max_active_clusters_batch(self, resident: Any, sizes: Any, non_portable: bool) -> Any: ...
    def _phases(self, *args: Any, **kwargs: Any) -> Dict[str, Any]: ...
    def _advise(self, **kwargs: Any) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]: ...
    def _bounds(self, *args: Any, **kwargs: Any) -> Dict[str, Any]: ...
    def _sweep(self, *args: Any, **kwargs: Any) -> Dict[str, Any]: ...
    def _limits(self, *args: Any, **kwargs: Any) -> Dict[str, Any]: ...

def builtin_devices() -> List[str]: ...
def builtin_yaml(name: str) -> str: ...
def library_version() -> str: ...
def _name_table(which: str) -> Tuple[str, ...]: ...
def _read_kernels(path: str, device: Optional[Device]) -> Tuple[str, str, List[Dict[str, Any]]]: ...
def _read_trace(path: str, device: Optional[Device]) -> Dict[str, Any]: ...
