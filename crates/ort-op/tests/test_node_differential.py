"""Single MatMulNBitsMlp nodes run by ONNX Runtime with this project's custom-op library
(on the GPU: lavapipe in CI), against ONNX Runtime's own CPU kernels running the op's unfused
equivalent (`[Skip]SimplifiedLayerNormalization` -> two `MatMulNBits` with their biases ->
`Sigmoid` -> `Mul` -> `Mul`: the pattern ORT's optimizer fuses into this op, and the independent
oracle of `../shared/spec/op-semantics.md`).

Each call draws its dtype, bits, block size (16-256), an awkward K and N, A of rank 2 or 3 (rows 0 to 40),
and every optional input and output on its own: norm_scale, skip (with norm_scale), the residual
output (with skip), gate_bias and up_bias. Both models read A (and skip) as graph inputs and the
rest as initializers, so the custom op sees each optional input as ORT passes it (present, or an
empty name). `NBITS_MLP_FUZZ_SEED=<n>` explores other calls, `NBITS_MLP_FUZZ_CASES=<n>` runs more
(default 16); a failure names the call and its seed.

Also: non-finite parameters and malformed nodes are refused with an ONNX Runtime error naming
the node and what is wrong (never a NaN column, a crash or a result).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

SEED = int(os.environ.get("NBITS_MLP_FUZZ_SEED", "21"))
CASES = int(os.environ.get("NBITS_MLP_FUZZ_CASES", "16"))
EPS = 1e-5

# Largest |fused - unfused| relative to max|Y| (and for the residual, to max|A + skip|). Each side
# is within the spec's tolerance of the float64 value: float32 1e-5 of max|Y| (ORT's unfused
# graph ~6e-7), so 2e-5 between them; float16 2e-3 of max|Y| (ORT rounds every intermediate to
# float16; the custom op may accumulate in float16, 8e-3), so 1e-2. Measured over 240 calls on
# lavapipe: at most 1.4e-6 (float32) and 3.3e-3 (float16). A missing bias, gate and up swapped or
# a wrong epsilon fail by 1e-1 and more.
TOL = {np.float32: 2e-5, np.float16: 1e-2}
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def draw(rng: np.random.Generator) -> dict:
    dtype = [np.float32, np.float16][rng.integers(2)]
    bits = int(rng.choice([2, 4, 8]))
    block = int(rng.choice([16, 32, 64, 128, 256]))
    k = int(rng.choice([rng.integers(1, 97), block * rng.integers(1, 6) + rng.integers(-3, 4), 32 * rng.integers(1, 24), rng.integers(97, 700)]))
    k = max(k, 1)
    n = int(rng.choice([rng.integers(1, 10), rng.integers(10, 70), 16 * rng.integers(1, 6), rng.integers(96, 260)]))
    rows = int(rng.choice([0, 1, 1, 2, 3, 5, 6, 7, 8, 9, 16, 17, 33, 40]))
    lead = [rows]
    if rows > 1 and rng.random() < 0.3:
        b = next(d for d in range(2, rows + 1) if rows % d == 0)
        lead = [b, rows // b]
    norm = rng.random() < 0.6
    skip = norm and rng.random() < 0.6
    residual = skip and rng.random() < 0.5
    return dict(dtype=dtype, bits=bits, block=block, k=k, n=n, lead=lead, norm=norm, skip=skip,
                residual=residual, gate_bias=rng.random() < 0.4, up_bias=rng.random() < 0.4)


def describe(c: dict) -> str:
    flags = [f for f in ("norm", "skip", "residual", "gate_bias", "up_bias") if c[f]]
    return (f"{np.dtype(c['dtype']).name} A{c['lead'] + [c['k']]} N={c['n']} bits={c['bits']} "
            f"block={c['block']}" + "".join(f" +{f}" for f in flags))


def tensors(c: dict, rng: np.random.Generator) -> tuple[dict, dict]:
    """(graph inputs, initializers) of call `c`: random codes over every byte (padding past K
    included), scales of a weight's size, activations of order 1."""
    dt, k, n, bits, block = c["dtype"], c["k"], c["n"], c["bits"], c["block"]
    kb = -(-k // block)
    blob = block * bits // 8
    feeds = {"A": rng.uniform(-1, 1, c["lead"] + [k]).astype(dt)}
    if c["skip"]:
        feeds["skip"] = rng.uniform(-1, 1, c["lead"] + [k]).astype(dt)
    scale = 2.0 / (np.sqrt(k) * 2 ** (bits - 1))
    inits = {}
    for m in ("gate", "up"):
        inits[f"{m}_B"] = rng.integers(0, 256, (n, kb, blob), dtype=np.uint8)
        inits[f"{m}_scales"] = (rng.uniform(0.5, 1.5, (n, kb)) * scale).astype(dt)
        if c[f"{m}_bias"]:
            inits[f"{m}_bias"] = rng.uniform(-0.5, 0.5, n).astype(dt)
    if c["norm"]:
        inits["norm_scale"] = rng.uniform(0.5, 1.5, k).astype(dt)
    return feeds, inits


def model(c: dict, feeds: dict, inits: dict, fused: bool) -> onnx.ModelProto:
    dt = ONNX_TYPE[c["dtype"]]
    shape = c["lead"] + [c["k"]]
    # Graph inputs of the feeds' own types and shapes.
    ins = [helper.make_tensor_value_info(name, ONNX_TYPE[v.dtype.type], list(v.shape)) for name, v in feeds.items()]
    y_shape = c["lead"] + [c["n"]]
    outs = [helper.make_tensor_value_info("Y", dt, y_shape)]
    if c["residual"]:
        outs.append(helper.make_tensor_value_info("S", dt, shape))
    attrs = dict(K=c["k"], N=c["n"], bits=c["bits"], block_size=c["block"])
    opt = lambda name: name if name in inits or name in feeds else ""  # noqa: E731
    if fused:
        nodes = [helper.make_node(
            "MatMulNBitsMlp",
            ["A", opt("skip"), opt("norm_scale"), "gate_B", "gate_scales", opt("gate_bias"), "up_B", "up_scales", opt("up_bias")],
            ["Y", "S"] if c["residual"] else ["Y"],
            name="mlp", domain="com.microsoft", activation="silu", **attrs)]
    else:
        nodes = []
        x = "A"
        if c["skip"]:
            nodes.append(helper.make_node(
                "SkipSimplifiedLayerNormalization", ["A", "skip", "norm_scale"],
                ["X", "", "", "S" if c["residual"] else ""], domain="com.microsoft", epsilon=EPS))
            x = "X"
        elif c["norm"]:
            nodes.append(helper.make_node("SimplifiedLayerNormalization", ["A", "norm_scale"], ["X"], axis=-1, epsilon=EPS))
            x = "X"
        for m in ("gate", "up"):
            nodes.append(helper.make_node(
                "MatMulNBits", [x, f"{m}_B", f"{m}_scales", "", "", opt(f"{m}_bias")], [m],
                domain="com.microsoft", accuracy_level=0, **attrs))
        nodes += [helper.make_node("Sigmoid", ["gate"], ["sg"]),
                  helper.make_node("Mul", ["gate", "sg"], ["silu"]),
                  helper.make_node("Mul", ["silu", "up"], ["Y"])]
    g = helper.make_graph(nodes, "g", ins, outs, [numpy_helper.from_array(v, name) for name, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m


def session(m: onnx.ModelProto, library=None) -> ort.InferenceSession:
    so = ort.SessionOptions()
    if library is not None:
        so.register_custom_ops_library(str(library))
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])


def relative(want: np.ndarray, got: np.ndarray) -> float:
    want = want.astype(np.float64)
    got = got.astype(np.float64)
    assert np.isfinite(got).all()
    if want.size == 0:
        return 0.0
    return float(np.abs(want - got).max() / max(np.abs(want).max(), 1e-30))


@pytest.mark.parametrize("i", range(CASES))
def test_random_node_matches_ort_unfused(library, i):
    rng = np.random.default_rng([SEED, i])
    c = draw(rng)
    feeds, inits = tensors(c, rng)
    what = f"NBITS_MLP_FUZZ_SEED={SEED} case {i}: {describe(c)}"
    want = session(model(c, feeds, inits, fused=False)).run(None, feeds)
    got = session(model(c, feeds, inits, fused=True), library).run(None, feeds)
    assert len(got) == len(want), what
    for name, w, g in zip(["Y", "input_skip_bias_sum"], want, got):
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}: {name} {g.dtype}{g.shape} against {w.dtype}{w.shape}"
        err = relative(w, g)
        assert err <= TOL[c["dtype"]], f"{what}: {name} error {err:.3e} of max|{name}| > {TOL[c['dtype']]:.0e}"


@pytest.mark.parametrize("name,constant", [("gate_scales", True), ("up_bias", True), ("norm_scale", True), ("up_scales", False)],
                         ids=["gate_scales", "up_bias", "norm_scale", "up_scales-graph-input"])
@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
def test_non_finite_parameters_are_refused(library, name, constant, bad):
    """A non-finite scale, bias or norm_scale is refused naming the tensor (the op's semantics on
    every backend), whether it is an initializer (checked when the session creates the kernel)
    or a graph input (checked at the call): never a NaN in Y."""
    c = dict(dtype=np.float32, bits=4, block=32, k=96, n=24, lead=[3], norm=True, skip=False,
             residual=False, gate_bias=True, up_bias=True)
    feeds, inits = tensors(c, np.random.default_rng(5))
    inits[name].flat[1] = bad
    if not constant:
        feeds[name] = inits.pop(name)
    m = model(c, feeds, inits, fused=True)
    with pytest.raises(Exception) as e:
        session(m, library).run(None, feeds)
    text = str(e.value)
    assert "nbits-mlp" in text and name in text and "must be finite" in text, text


@pytest.mark.parametrize("rows", [1, 4])
@pytest.mark.parametrize("norm,constant", [(False, True), (True, True), (True, False)],
                         ids=["plain", "norm", "norm-graph-input"])
def test_float16_values_past_the_float16_sums(library, rows, norm, constant):
    """Float16 activations that the float16-accumulating kernels (the gemv at 1 row, the
    few-rows kernel at 4) cannot sum: every code 0 (code - zero = -8) and every activation (after
    the norm) 768, so each float16 sum of 16 products would be -98304, past float16's range. The
    custom op plans such a call without float16 sums (from A and norm_scale, an initializer or a
    graph input) and matches ONNX Runtime's unfused graph, finite."""
    k, n = 256, 64
    c = dict(dtype=np.float16, bits=4, block=32, k=k, n=n, lead=[rows], norm=norm, skip=False,
             residual=False, gate_bias=False, up_bias=False)
    feeds = {"A": np.full((rows, k), 1.0 if norm else 768.0, np.float16)}
    scale = -1.0 / (k * 768 * 8)
    inits = {}
    for m in ("gate", "up"):
        inits[f"{m}_B"] = np.zeros((n, k // 32, 16), np.uint8)
        inits[f"{m}_scales"] = np.full((n, k // 32), scale, np.float16)
    if norm:
        inits["norm_scale"] = np.full(k, 768.0, np.float16)
        if not constant:
            feeds["norm_scale"] = inits.pop("norm_scale")
    want = session(model(c, feeds, inits, fused=False)).run(None, feeds)[0]
    got = session(model(c, feeds, inits, fused=True), library).run(None, feeds)[0]
    assert np.abs(want.astype(np.float64)).max() > 0.1
    err = relative(want, got)
    assert err <= TOL[np.float16], f"rows {rows} norm {norm}: error {err:.3e} of max|Y|"


@pytest.mark.parametrize("rows", [1, 4, 16])
@pytest.mark.parametrize("constant", [True, False], ids=["norm", "norm-graph-input"])
def test_normalised_rows_past_float16(library, rows, constant):
    """A float16 norm_scale that takes a normalised element past float16's range while Y stays
    small: each row holds one 1000 among 0.01s (~16 once normalised) where norm_scale is 8000,
    ~128 000 after the norm; every code 0 (code - zero = -8) and scales -1e-5, so g = u ~ 10.
    ONNX Runtime's unfused float16 graph rounds the normalised row to float16 (infinities); the
    custom op plans such a call with float32 rows (norm_scale an initializer or a graph input)
    and matches the same unfused graph run in float32 on the same values."""
    k, n = 256, 64
    c = dict(dtype=np.float16, bits=4, block=32, k=k, n=n, lead=[rows], norm=True, skip=False,
             residual=False, gate_bias=False, up_bias=False)
    a = np.full((rows, k), 0.01, np.float16)
    for r in range(rows):
        a[r, 37 + r % 4] = 1000
    g = np.ones(k, np.float16)
    g[37:41] = 8000
    feeds = {"A": a}
    inits = {"norm_scale": g}
    for m in ("gate", "up"):
        inits[f"{m}_B"] = np.zeros((n, k // 32, 16), np.uint8)
        inits[f"{m}_scales"] = np.full((n, k // 32), -1e-5, np.float16)
    if not constant:
        feeds["norm_scale"] = inits.pop("norm_scale")
    wide = lambda d: {x: (v.astype(np.float32) if v.dtype == np.float16 else v) for x, v in d.items()}  # noqa: E731
    want = session(model(dict(c, dtype=np.float32), wide(feeds), wide(inits), fused=False)).run(
        None, wide(feeds))[0]
    got = session(model(c, feeds, inits, fused=True), library).run(None, feeds)[0]
    assert np.isfinite(want).all() and np.abs(want).max() > 10
    err = relative(want, got)
    assert err <= TOL[np.float16], f"rows {rows}: error {err:.3e} of max|Y|"


def _drop_attribute(name):
    def f(m):
        n = m.graph.node[0]
        keep = [a for a in n.attribute if a.name != name]
        del n.attribute[:]
        n.attribute.extend(keep)
    return f


def _set_attribute(name, value):
    def f(m):
        for a in m.graph.node[0].attribute:
            if a.name == name:
                a.i = value
    return f


def _skip_dropped(m):
    m.graph.node[0].input[1] = ""


BAD = [
    ("gate_B rank 2", lambda f, i: i.__setitem__("gate_B", i["gate_B"].reshape(24, -1)), None,
     "input 3 `gate_B`: expected rank 3"),
    ("gate_scales rank 1", lambda f, i: i.__setitem__("gate_scales", i["gate_scales"].ravel().copy()), None,
     "input 4 `gate_scales`: expected rank 2"),
    ("A rank 4", lambda f, i: [f.__setitem__(x, f[x].reshape(1, 1, 3, 96)) for x in ("A", "skip")], None,
     "`ranks.aT == 2`"),
    ("skip not A's shape", lambda f, i: f.__setitem__("skip", f["skip"][:2].copy()), None,
     "input 1 `skip`: skip must have A's shape"),
    ("residual without skip", None, _skip_dropped, "skip input must be present when input_skip_bias_sum"),
    ("K past the weights", None, _set_attribute("K", 2**31 - 1), "norm_scale must have shape [K]"),
    ("N past 32 bits", None, _set_attribute("N", 2**40), "attribute `N`: must be in 1..=2147483647"),
    ("no K", None, _drop_attribute("K"), "attribute `K`: required attribute is missing"),
]


@pytest.mark.parametrize("what,feeds_inits,node,message", BAD, ids=[b[0] for b in BAD])
def test_bad_nodes_are_refused(library, what, feeds_inits, node, message):
    """Malformed nodes raise an ONNX Runtime error naming the node and what is wrong, never
    crash the process or compute."""
    c = dict(dtype=np.float32, bits=4, block=32, k=96, n=24, lead=[3], norm=True, skip=True,
             residual=True, gate_bias=False, up_bias=False)
    feeds, inits = tensors(c, np.random.default_rng(9))
    if feeds_inits:
        feeds_inits(feeds, inits)
    m = model(c, feeds, inits, fused=True)
    if node:
        node(m)
    with pytest.raises(Exception) as e:
        session(m, library).run(None, feeds)
    text = str(e.value)
    assert "nbits-mlp: node 'mlp'" in text and message in text, text


def test_one_session_many_row_counts(library):
    """One session with a symbolic row count, called with changing rows (a prefill, nothing,
    decode steps, a batch): the library reallocates its tensors as the shapes change and every
    call matches the unfused graph's."""
    c = dict(dtype=np.float16, bits=4, block=32, k=128, n=40, lead=[3], norm=True, skip=True,
             residual=True, gate_bias=True, up_bias=False)
    rng = np.random.default_rng(3)
    feeds, inits = tensors(c, rng)
    sessions = []
    for fused in (True, False):
        m = model(c, feeds, inits, fused=fused)
        for vi in list(m.graph.input) + list(m.graph.output):
            dim = vi.type.tensor_type.shape.dim[0]
            dim.ClearField("dim_value")
            dim.dim_param = "rows"
        sessions.append(session(m, library if fused else None))
    for rows in [3, 0, 7, 1, 3, 64, 2]:
        f = {x: rng.uniform(-1, 1, (rows, 128)).astype(np.float16) for x in ("A", "skip")}
        got, want = (s.run(None, f) for s in sessions)
        for name, w, g in zip(["Y", "input_skip_bias_sum"], want, got):
            assert g.shape == w.shape, (rows, name)
            assert relative(w, g) <= TOL[np.float16], (rows, name, relative(w, g))
