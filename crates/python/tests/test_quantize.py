"""Packing: quantize / dequantize, and quantize against ONNX Runtime's MatMulNBitsQuantizer
(symmetric) where onnxruntime is installed. No GPU needed."""

import numpy as np
import pytest

import nbits_mlp


def codes(B, K, bits, block_size):
    """Every code of B [N, k_blocks, blob] as uint8 [N, K] (the padding past K left out)."""
    N = B.shape[0]
    per_byte = 8 // bits
    flat = B.reshape(N, -1)
    shifts = (np.arange(per_byte) * bits).astype(np.uint8)
    c = ((flat[:, :, None] >> shifts) & ((1 << bits) - 1)).reshape(N, -1)
    return c[:, :K]


GEOMETRIES = [(2, 16), (2, 32), (4, 16), (4, 32), (4, 64), (4, 128), (8, 32), (8, 128)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bits,block_size", GEOMETRIES)
def test_round_trip_within_half_a_step(bits, block_size, dtype):
    rng = np.random.default_rng(bits * 1000 + block_size)
    N, K = 5, 3 * block_size + 7  # K not a multiple of the block: a padded last block
    w = rng.standard_normal((N, K)).astype(dtype)
    B, scales = nbits_mlp.quantize(w, bits, block_size)
    kb = -(-K // block_size)
    assert B.dtype == np.uint8 and B.shape == (N, kb, block_size * bits // 8)
    assert scales.dtype == dtype and scales.shape == (N, kb)
    back = nbits_mlp.dequantize(B, scales, K, bits, block_size)
    assert back.dtype == np.float64 and back.shape == (N, K)
    s = np.repeat(np.abs(scales.astype(np.float64)), block_size, axis=1)[:, :K]
    err = np.abs(back - w.astype(np.float64))
    # Within half a step, except a value as large as a negative largest magnitude of its
    # block, which is clamped one step low.
    clamped = np.abs(w.astype(np.float64)) >= ((1 << (bits - 1)) - 0.5) * s
    bound = np.where(clamped, s, s / 2)
    assert np.all(err <= bound * (1 + 1e-6) + 1e-30)
    # The padding codes are the zero point.
    c = codes(B, kb * block_size, bits, block_size)
    assert np.all(c[:, K:] == 1 << (bits - 1))


def test_worked_example():
    # The largest magnitude (8, positive) sets scale = -8 / 8 = -1 and gets code 0.
    w = np.array([[8.0, -4.0, 0.0, 3.0, 1.0, 0.5, -0.5, 1.5]], np.float32)
    B, scales = nbits_mlp.quantize(w, 4, 16)
    assert scales.tolist() == [[-1.0]]
    assert codes(B, 8, 4, 16).tolist() == [[0, 12, 8, 5, 7, 8, 9, 7]]
    assert nbits_mlp.dequantize(B, scales, 8, 4, 16).tolist() == [
        [8.0, -4.0, 0.0, 3.0, 1.0, 0.0, -1.0, 1.0]
    ]


def test_accepts_any_layout():
    w = np.random.default_rng(1).standard_normal((64, 6)).astype(np.float32)
    B1, s1 = nbits_mlp.quantize(np.ascontiguousarray(w.T), 4, 32)
    B2, s2 = nbits_mlp.quantize(w.T, 4, 32)  # a transposed view: not C-contiguous
    assert np.array_equal(B1, B2) and np.array_equal(s1, s2)


def test_errors():
    w = np.ones((2, 32), np.float32)
    with pytest.raises(ValueError, match=r"Only 4b/8b/2b quantization is supported.*bits = 3"):
        nbits_mlp.quantize(w, 3, 32)
    with pytest.raises(ValueError, match="block_size"):
        nbits_mlp.quantize(w, 2, 6)
    with pytest.raises(ValueError, match=r"w: expected a 2-D float32 or float16 array \[N, K\], got float64"):
        nbits_mlp.quantize(w.astype(np.float64))
    with pytest.raises(ValueError, match=r"w: expected a 2-D .* got float32 \[64\]"):
        nbits_mlp.quantize(np.ones(64, np.float32))
    bad = w.copy()
    bad[1, 3] = np.nan
    with pytest.raises(ValueError, match=r"w\[1, 3\] = NaN is not finite"):
        nbits_mlp.quantize(bad)
    B, s = nbits_mlp.quantize(w, 4, 32)
    with pytest.raises(ValueError, match=r"B: expected uint8 \[2, 1, 16\]"):
        nbits_mlp.dequantize(B[:, :, :8], s, 32, 4, 32)
    with pytest.raises(ValueError, match=r"scales: expected float32 or float16 \[2, 1\]"):
        nbits_mlp.dequantize(B, s.astype(np.float64), 32, 4, 32)


# ---- ONNX Runtime --------------------------------------------------------------------------


def ort_quantize_function(bits):
    """ONNX Runtime's blockwise quantizer for `bits` (what MatMulNBitsQuantizer calls), or skip."""
    state = pytest.importorskip("onnxruntime.capi._pybind_state")
    fn = getattr(state, f"quantize_matmul_{bits}bits", None)
    if fn is None:
        pytest.skip(f"this onnxruntime has no quantize_matmul_{bits}bits")
    return fn


def ort_quantize(w, bits, block_size):
    """ONNX Runtime's symmetric quantization of w [N, K] (as MatMul's B = w.T): (B, scales)."""
    fn = ort_quantize_function(bits)
    N, K = w.shape
    kb = -(-K // block_size)
    packed = np.zeros((N, kb, block_size * bits // 8), np.uint8)
    scales = np.zeros((N, kb), w.dtype)
    zero_points = np.zeros((N, kb), np.uint8)
    fn(packed, np.ascontiguousarray(w.T), scales, zero_points, block_size, N, K, True)
    return packed, scales


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bits,block_size", GEOMETRIES)
def test_matches_onnxruntime_blockwise_quantizer(bits, block_size, dtype):
    rng = np.random.default_rng(7 * bits + block_size)
    N, K = 6, 2 * block_size + 5
    w = (rng.standard_normal((N, K)) * 0.05).astype(dtype)
    # Blocks with ties and zeros: equal magnitudes of both signs, and an all-zero block.
    w[0, :block_size] = 0
    w[1, 0], w[1, 1] = 0.25, -0.25
    w[2, 3] = 0.5
    B, scales = nbits_mlp.quantize(w, bits, block_size)
    ort_B, ort_scales = ort_quantize(w, bits, block_size)
    assert scales.dtype == ort_scales.dtype
    assert np.array_equal(scales.view(np.uint8), ort_scales.view(np.uint8)), "scales differ"
    assert np.array_equal(codes(B, K, bits, block_size), codes(ort_B, K, bits, block_size))


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_matches_onnxruntime_matmul_nbits_quantizer(bits):
    """The whole MatMulNBitsQuantizer on a MatMul model: its MatMulNBits node's B and scales."""
    pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")
    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    except ImportError as e:
        pytest.skip(f"MatMulNBitsQuantizer is not importable here: {e}")
    from onnx import TensorProto, helper, numpy_helper

    K, N, block_size = 100, 24, 32
    rng = np.random.default_rng(bits)
    b = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, K])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, N])],
        [numpy_helper.from_array(b, "B")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    q = MatMulNBitsQuantizer(model, bits=bits, block_size=block_size, is_symmetric=True)
    q.process()
    nodes = [n for n in q.model.model.graph.node if n.op_type == "MatMulNBits"]
    assert len(nodes) == 1, "the MatMul was not quantized"
    inits = {t.name: numpy_helper.to_array(t) for t in q.model.model.graph.initializer}
    ort_B, ort_scales = inits[nodes[0].input[1]], inits[nodes[0].input[2]]
    assert len(nodes[0].input) == 3, "symmetric: no zero-point input"
    B, scales = nbits_mlp.quantize(np.ascontiguousarray(b.T), bits, block_size)
    assert np.array_equal(scales, ort_scales.reshape(scales.shape))
    assert np.array_equal(
        codes(B, K, bits, block_size), codes(ort_B.reshape(B.shape), K, bits, block_size)
    )
