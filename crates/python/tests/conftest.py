"""Shared fixtures: one GPU runtime per session (lavapipe on a machine without a GPU), and
random layers quantized with nbits_mlp.quantize."""

import os

import numpy as np
import pytest

import nbits_mlp


@pytest.fixture(scope="session")
def rt():
    """The session's runtime on the best Vulkan adapter. Without one, the GPU tests fail, or
    are skipped when NBITS_MLP_SKIP_GPU=1 (as the Rust tests)."""
    try:
        return nbits_mlp.Runtime()
    except nbits_mlp.GpuError as e:
        if os.environ.get("NBITS_MLP_SKIP_GPU", "").strip() == "1":
            pytest.skip(f"no GPU adapter (NBITS_MLP_SKIP_GPU=1): {e}")
        raise


class Layer:
    """A random gate/up layer: float weights, their quantization, optional norm and biases, and
    the keyword arguments of Runtime.mlp / nbits_mlp.reference."""

    def __init__(self, K, N, *, dtype=np.float32, bits=4, block_size=32, norm=False,
                 gate_bias=False, up_bias=False, seed=0):
        rng = np.random.default_rng(seed)
        self.K, self.N, self.dtype = K, N, np.dtype(dtype)
        # Unit-variance weights scaled by 1/sqrt(K): g, u and Y of order 1 for every K.
        scale = 1.0 / np.sqrt(K)
        self.w_gate = (rng.standard_normal((N, K)) * scale).astype(dtype)
        self.w_up = (rng.standard_normal((N, K)) * scale).astype(dtype)
        self.gate_B, self.gate_scales = nbits_mlp.quantize(self.w_gate, bits, block_size)
        self.up_B, self.up_scales = nbits_mlp.quantize(self.w_up, bits, block_size)
        self.kwargs = dict(K=K, N=N, bits=bits, block_size=block_size)
        if norm:
            self.kwargs["norm_scale"] = rng.uniform(0.5, 1.5, K).astype(dtype)
        if gate_bias:
            self.kwargs["gate_bias"] = rng.uniform(-0.5, 0.5, N).astype(dtype)
        if up_bias:
            self.kwargs["up_bias"] = rng.uniform(-0.5, 0.5, N).astype(dtype)
        self.rng = rng

    def weights(self):
        return (self.gate_B, self.gate_scales, self.up_B, self.up_scales)

    def mlp(self, rt):
        return rt.mlp(*self.weights(), **self.kwargs)

    def activations(self, shape):
        return self.rng.uniform(-1.0, 1.0, shape).astype(self.dtype)

    def reference(self, a, skip=None, residual=False):
        """(Y, residual or None, error scale) from the float64 reference."""
        out = nbits_mlp.reference(a, *self.weights(), skip=skip, residual=residual,
                                  error_scale=True, **self.kwargs)
        if residual:
            return out
        return out[0], None, out[1]


@pytest.fixture
def layer():
    return Layer
