"""Type stubs of nbits_mlp (the extension module nbits_mlp._nbits_mlp)."""

import os
from typing import Any, Iterable, Literal, Optional, Tuple, overload

import numpy as np
import numpy.typing as npt

_FloatArray = npt.NDArray[Any]
_ArrayLike = npt.ArrayLike

__version__: str

class GpuError(RuntimeError):
    """A failure of the GPU device or its driver (no adapter, a shader that does not compile, a
    buffer over a device limit, no variant for this device, a lost device)."""

def quantize(
    w: _ArrayLike, bits: int = 4, block_size: int = 32
) -> Tuple[npt.NDArray[np.uint8], _FloatArray]:
    """Quantizes ``w`` ([N, K], float32 or float16) to the MatMulNBits layout, symmetrically, as
    ONNX Runtime's ``MatMulNBitsQuantizer(is_symmetric=True)``: returns ``(B, scales)``, B uint8
    [N, k_blocks, block_size * bits // 8], scales [N, k_blocks] of w's dtype."""

def dequantize(
    B: _ArrayLike, scales: _ArrayLike, K: int, bits: int = 4, block_size: int = 32
) -> npt.NDArray[np.float64]:
    """``W[n, k] = (code - 2**(bits-1)) * scales[n, k // block_size]`` exactly, float64 [N, K]."""

def reference(
    a: _ArrayLike,
    gate_B: _ArrayLike,
    gate_scales: _ArrayLike,
    up_B: _ArrayLike,
    up_scales: _ArrayLike,
    *,
    K: int,
    N: Optional[int] = None,
    bits: int = 4,
    block_size: int,
    skip: Optional[_ArrayLike] = None,
    norm_scale: Optional[_ArrayLike] = None,
    gate_bias: Optional[_ArrayLike] = None,
    up_bias: Optional[_ArrayLike] = None,
    epsilon: float = 1e-5,
    residual: bool = False,
    error_scale: bool = False,
) -> Any:
    """The float64 reference: ``Y`` (float64), or a tuple ``(Y[, residual][, error_scale])``."""

def compare(
    got: _ArrayLike,
    expected: _ArrayLike,
    error_scale: Optional[_ArrayLike] = None,
    f16_accumulation: bool = False,
) -> Tuple[float, float]:
    """``(error, tolerance)`` of the worst element of ``got`` against the float64 reference."""

def adapters(backends: Optional[str] = None) -> list[dict[str, Any]]:
    """Every GPU adapter (Vulkan unless ``backends`` says otherwise), best first."""

class Runtime:
    """A GPU adapter and its device. ``adapter``: a case-insensitive substring of its name."""

    def __init__(self, adapter: Optional[str] = None, *, backends: Optional[str] = None) -> None: ...
    @property
    def adapter(self) -> dict[str, Any]: ...
    @property
    def features(self) -> list[str]: ...
    @property
    def has_timestamps(self) -> bool: ...
    def stats(self) -> dict[str, int]: ...
    def mlp(
        self,
        gate_B: _ArrayLike,
        gate_scales: _ArrayLike,
        up_B: _ArrayLike,
        up_scales: _ArrayLike,
        *,
        K: int,
        N: Optional[int] = None,
        bits: int = 4,
        block_size: int,
        norm_scale: Optional[_ArrayLike] = None,
        gate_bias: Optional[_ArrayLike] = None,
        up_bias: Optional[_ArrayLike] = None,
        epsilon: float = 1e-5,
        tunables: Optional[dict[str, int]] = None,
    ) -> Mlp:
        """Uploads one layer's weights once; returns an ``Mlp`` to call on activations.
        ``tunables`` overrides the manifest's tunables for every call (the CLI's ``--tunable``)."""
    def explain(
        self,
        *,
        K: int,
        N: int,
        rows: int = 1,
        batch: Optional[int] = None,
        dtype: str = "float16",
        bits: int = 4,
        block_size: int = 32,
        skip: bool = False,
        norm: bool = False,
        residual: bool = False,
        gate_bias: bool = False,
        up_bias: bool = False,
        tunables: Optional[dict[str, int]] = None,
    ) -> dict[str, Any]:
        """The plan for a call of this shape, with every variant's verdict and why."""
    def map(
        self,
        *,
        K: int,
        N: int,
        rows: Optional[Iterable[int]] = None,
        dtype: str = "float16",
        bits: int = 4,
        block_size: int = 32,
        skip: bool = False,
        norm: bool = False,
        residual: bool = False,
        gate_bias: bool = False,
        up_bias: bool = False,
        tunables: Optional[dict[str, int]] = None,
        why: bool = False,
    ) -> list[dict[str, Any]]:
        """The kernel map on this device (``nbits-mlp map``): the row counts of ``rows``
        (default 1-512) in spans of one kernel, each ``{first, last, variant, family,
        passes}`` and, for the tensor-core kernels, the tile's ``form``; with ``why``, each
        span but the first says the rule that moved its boundary."""
    def map_model(
        self,
        path: str | os.PathLike[str],
        *,
        rows: Optional[Iterable[int]] = None,
        tunables: Optional[dict[str, int]] = None,
        why: bool = False,
    ) -> list[dict[str, Any]]:
        """The kernel map of each distinct MatMulNBitsMlp node of an ONNX model (``nbits-mlp
        map MODEL.onnx``): one dict per node shape (``model``, ``k``, ``n``, ``dtype``,
        ``form``, ``bits``, ``block_size``, ``gate_bias``, ``up_bias``, ``spans``)."""

class Mlp:
    """One MLP layer's weights on the GPU, callable on activations."""

    @overload
    def __call__(
        self,
        a: _ArrayLike,
        skip: Optional[_ArrayLike] = None,
        *,
        residual: Literal[False] = False,
        out: Optional[_FloatArray] = None,
    ) -> _FloatArray: ...
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        skip: Optional[_ArrayLike] = None,
        *,
        residual: Literal[True],
        out: Optional[Tuple[Optional[_FloatArray], Optional[_FloatArray]]] = None,
    ) -> Tuple[_FloatArray, _FloatArray]: ...
    def plan(
        self,
        rows: int = 1,
        *,
        batch: Optional[int] = None,
        skip: bool = False,
        residual: bool = False,
        explain: bool = False,
    ) -> dict[str, Any]:
        """The plan a call with ``rows`` rows would run (variant, passes, dispatch, verdicts)."""
    def compiled(
        self,
        rows: int = 1,
        *,
        batch: Optional[int] = None,
        skip: bool = False,
        residual: bool = False,
    ) -> dict[str, Any]:
        """What the driver compiles each pass to (registers, shared memory; NVIDIA's SM count).

        ``note`` says why ``passes`` is empty where the driver reports nothing (lavapipe)."""
    def time(self, rows: int = 1, iters: int = 20, *, skip: bool = False, residual: bool = False) -> float:
        """GPU time of one call in microseconds (median of ``iters``, timestamp queries)."""
    def _host_timings(
        self,
        a: _ArrayLike,
        skip: Optional[_ArrayLike] = None,
        *,
        reps: int = 1000,
        submit: bool = True,
    ) -> dict[str, Any]: ...
    @property
    def K(self) -> int: ...
    @property
    def N(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def dtype(self) -> str: ...
    @property
    def has_norm(self) -> bool: ...
    @property
    def tunables(self) -> dict[str, int]: ...

def fuse(input: str | os.PathLike[str], output: str | os.PathLike[str], domain: str | None = None) -> dict[str, Any]:
    """Rewrites every fusable MLP of the ONNX model ``input`` into one MatMulNBitsMlp node
    (``nbits-mlp fuse``), writes ``output`` and returns the report (fused per layer; the rule
    that stopped every other candidate). Raises ValueError for a model it cannot read or write."""
    ...
