"""ONNX Runtime's fused quantized MLP operator (``com.microsoft::MatMulNBitsMlp``) on WebGPU,
on numpy arrays.

::

    import numpy as np, nbits_mlp
    gate_B, gate_scales = nbits_mlp.quantize(w_gate, bits=4, block_size=32)   # w: [N, K]
    up_B, up_scales = nbits_mlp.quantize(w_up, bits=4, block_size=32)
    mlp = nbits_mlp.Runtime().mlp(gate_B, gate_scales, up_B, up_scales, K=4096, block_size=32)
    y = mlp(a)                                  # a: [rows, K] or [batch, seq, K]

``Y = silu(A_n W_gate^T + gate_bias) * (A_n W_up^T + up_bias)`` with ``A_n`` the RMSNorm of
``A + skip`` when the layer has ``norm_scale``; float16 or float32; 2-, 4- or 8-bit weights in
the MatMulNBits layout. ``reference`` is the float64 CPU oracle with the same arguments and
``compare`` checks a result against it. Bad arguments raise ``ValueError`` (with the messages of
the ``nbits-mlp`` command line); device failures raise ``GpuError``. ``fuse`` rewrites an
exported LLM's MLPs into MatMulNBitsMlp nodes (``nbits-mlp fuse``).
"""

from ._nbits_mlp import (
    GpuError,
    Mlp,
    Runtime,
    __version__,
    adapters,
    compare,
    dequantize,
    fuse,
    quantize,
    reference,
)

__all__ = [
    "GpuError",
    "Mlp",
    "Runtime",
    "__version__",
    "adapters",
    "compare",
    "dequantize",
    "fuse",
    "quantize",
    "reference",
]
