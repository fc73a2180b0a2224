"""Bad input raises ValueError with the message the command line prints for the same call (the
planner's), the same on the GPU and the reference path; what the device cannot do raises
nbits_mlp.GpuError."""

import re

import numpy as np
import pytest

import nbits_mlp
from conftest import Layer

F16, F32 = np.float16, np.float32
K, N = 64, 16


@pytest.fixture(scope="module")
def layer():
    return Layer(K, N, dtype=F16, norm=True, seed=21)


@pytest.fixture(scope="module")
def mlp(rt, layer):
    return layer.mlp(rt)


def raises(message, fn):
    with pytest.raises(ValueError) as e:
        fn()
    assert str(e.value) == message
    return e


# (what, a shape, a dtype, skip shape or None, residual, expected message)
CALLS = [
    ("A float64", (2, K), np.float64, None, False,
     "input 0 `A`: dtype float64 is not allowed for T1 (allowed: float32, float16)"),
    ("A int8", (2, K), np.int8, None, False,
     "input 0 `A`: dtype int8 is not allowed for T1 (allowed: float32, float16)"),
    ("A float32, weights float16", (2, K), F32, None, False,
     "input 2 `norm_scale`: type parameter T1 is bound to different types: `A` is float32, "
     "`norm_scale` is float16"),
    ("A last dim not K", (2, K - 1), F16, None, False,
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `ioShapeOk` is "
     "false: `dim(shapes.aT, ranks.aT - 1) == attrs.K` is false (63 vs 64)"),
    ("A rank 1", (K,), F16, None, False,
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `ioShapeOk` is "
     "false: neither `ranks.aT == 2` nor `ranks.aT == 3` holds: `ranks.aT == 2` is false "
     "(1 vs 2); `ranks.aT == 3` is false (1 vs 3)"),
    ("A rank 4", (1, 1, 2, K), F16, None, False,
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `ioShapeOk` is "
     "false: neither `ranks.aT == 2` nor `ranks.aT == 3` holds: `ranks.aT == 2` is false "
     "(4 vs 2); `ranks.aT == 3` is false (4 vs 3)"),
    ("skip shaped unlike A", (2, K), F16, (3, K), False,
     "input 1 `skip`: skip must have A's shape"),
    ("residual without skip", (2, K), F16, None, True,
     "output 1 `input_skip_bias_sum`: skip input must be present when input_skip_bias_sum "
     "output is requested"),
]


@pytest.mark.parametrize("what,shape,dtype,skip_shape,residual,message", CALLS,
                         ids=[c[0] for c in CALLS])
def test_bad_calls(mlp, layer, what, shape, dtype, skip_shape, residual, message):
    a = np.zeros(shape, dtype)
    skip = None if skip_shape is None else np.zeros(skip_shape, dtype)
    raises(message, lambda: mlp(a, skip, residual=residual))
    # The reference refuses the same call with the same message.
    raises(message, lambda: nbits_mlp.reference(a, *layer.weights(), skip=skip,
                                                residual=residual, **layer.kwargs))


def test_skip_dtype(mlp, layer):
    a = np.zeros((2, K), F16)
    raises("input 1 `skip`: type parameter T1 is bound to different types: `A` is float16, "
           "`skip` is float32", lambda: mlp(a, a.astype(F32)))


def test_skip_without_norm(rt, layer):
    plain = rt.mlp(*layer.weights(), K=K, block_size=32)
    a = np.zeros((2, K), F16)
    message = "input 1 `skip`: MatMulNBitsMlp requires norm_scale when skip is present."
    raises(message, lambda: plain(a, a))
    raises(message, lambda: plain.plan(2, skip=True))
    raises(message, lambda: nbits_mlp.reference(a, *layer.weights(), K=K, block_size=32, skip=a))


def weights(layer, **change):
    w = dict(gate_B=layer.gate_B, gate_scales=layer.gate_scales, up_B=layer.up_B,
             up_scales=layer.up_scales)
    kw = dict(K=K, block_size=32, norm_scale=layer.kwargs["norm_scale"])
    for k, v in change.items():
        (w if k in w else kw)[k] = v
    return w, kw


LAYERS = [
    ("bits 3", dict(bits=3), "attribute `bits`: value 3 is not allowed (allowed: [2, 4, 8])"),
    ("K does not fit the blocks", dict(K=128, norm_scale=np.ones(128, F16)),
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `weightShapeOk` "
     "is false: `kBlocks == ceilDiv(attrs.K, attrs.block_size)` is false (2 vs 4)"),
    ("N not the weights'", dict(N=8),
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `weightShapeOk` "
     "is false: `dim(shapes.gateBT, 0) == attrs.N` is false (16 vs 8)"),
    ("gate_B int8", dict(gate_B="int8"), "input 3 `gate_B`: expected dtype uint8, got int8"),
    ("scales float64", dict(gate_scales="float64"),
     "input 4 `gate_scales`: dtype float64 is not allowed for T1 (allowed: float32, float16)"),
    # T1 is the scales' type: A of the first scales' type meets norm_scale of the other first.
    ("scales of two types", dict(gate_scales="float32"),
     "input 2 `norm_scale`: type parameter T1 is bound to different types: `A` is float32, "
     "`norm_scale` is float16"),
    ("norm_scale not [K]", dict(norm_scale=np.ones(32, F16)),
     "input 2 `norm_scale`: norm_scale must have shape [K]"),
    ("gate_bias not [N]", dict(gate_bias=np.ones(8, F16)),
     "contract violated (top-level when `mlpShapeOk`): `mlpShapeOk` is false: `biasShapeOk` "
     "is false: `dim(shapes.gateBiasT, 0) == attrs.N` is false (8 vs 16)"),
    # Non-finite parameters (the op's semantics on every backend; the device path checks them
    # before the upload, as the weights are never read back).
    ("NaN scale", dict(gate_scales=lambda layer: with_value(layer.gate_scales, (3, 1), np.nan)),
     "input 4 `gate_scales`: gate_scales[3, 1] is NaN: scales, biases and norm_scale must be "
     "finite"),
    ("infinite bias", dict(up_bias=lambda layer: with_value(np.ones(N, F16), (7,), np.inf)),
     "input 8 `up_bias`: up_bias[7] is inf: scales, biases and norm_scale must be finite"),
    ("infinite norm_scale", dict(norm_scale=lambda layer: with_value(np.ones(K, F16), (0,), -np.inf)),
     "input 2 `norm_scale`: norm_scale[0] is -inf: scales, biases and norm_scale must be finite"),
]


def with_value(array, index, value):
    out = np.array(array, copy=True)
    out[index] = value
    return out


@pytest.mark.parametrize("what,change,message", LAYERS, ids=[c[0] for c in LAYERS])
def test_bad_layers(rt, layer, what, change, message):
    change = {k: (getattr(layer, k).astype(v) if isinstance(v, str) else v(layer) if callable(v) else v)
              for k, v in change.items()}
    w, kw = weights(layer, **change)
    raises(message, lambda: rt.mlp(*w.values(), **kw))
    a = np.zeros((1, kw["K"]), F32 if what == "scales of two types" else F16)
    raises(message, lambda: nbits_mlp.reference(a, *w.values(), **kw))


def test_device_failures_are_gpu_errors(rt):
    # Weights over the device's storage-binding limit: planning says so; nothing is allocated.
    with pytest.raises(nbits_mlp.GpuError, match=r"binding `gate_b` of pass `main`: \d+ bytes "
                       r"exceed the device's maxStorageBufferBindingSize"):
        rt.explain(K=1 << 16, N=60000, dtype="float32")
    assert issubclass(nbits_mlp.GpuError, RuntimeError)


def test_bad_tunables(rt, layer):
    """Unknown tunables and values outside a tunable's limits raise ValueError naming the
    tunable (the CLI's exit 2), at `Runtime.mlp` and at `Runtime.explain`; a value that is not
    an integer raises TypeError."""
    w, kw = layer.weights(), layer.kwargs
    with pytest.raises(ValueError, match=r"^unknown tunable `NOPE` \(known: .*MMA_PAIRS"):
        rt.mlp(*w, **kw, tunables={"NOPE": 1})
    with pytest.raises(ValueError, match=r"^tunable `MMA_PAIRS`: 3 is not allowed: it must be "):
        rt.mlp(*w, **kw, tunables={"MMA_PAIRS": 3})
    with pytest.raises(ValueError, match=r"^unknown tunable `NOPE`"):
        rt.explain(K=K, N=N, tunables={"NOPE": 1})
    with pytest.raises(TypeError):
        rt.mlp(*w, **kw, tunables={"MMA_PAIRS": "two"})


def test_explain_arguments(rt):
    with pytest.raises(ValueError, match="dtype: expected float16 or float32, got int8"):
        rt.explain(K=K, N=N, dtype="int8")
    raises("output 1 `input_skip_bias_sum`: skip input must be present when "
           "input_skip_bias_sum output is requested",
           lambda: rt.explain(K=K, N=N, norm=True, residual=True))
