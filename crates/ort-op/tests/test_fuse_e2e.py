"""End to end: a decoder in the model builder's layout, fused by `nbits-mlp fuse`, run by ONNX
Runtime with this project's custom-op library (the MLPs on the GPU: lavapipe in CI), against
the original on ONNX Runtime's CPU execution provider."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from decoder import Config, build, feeds

# Steps compared: a prefill of 5 tokens, and one decode token after 4 cached ones.
STEPS = [(5, 0), (1, 4)]


def fuse(cli: Path, src: Path, dst: Path, *extra: str) -> dict:
    r = subprocess.run([str(cli), "fuse", str(src), "-o", str(dst), "--json", *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def session(model, library: Path | None = None) -> ort.InferenceSession:
    so = ort.SessionOptions()
    if library is not None:
        so.register_custom_ops_library(str(library))
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])


def with_accuracy_level(model: onnx.ModelProto, level: int) -> onnx.ModelProto:
    m = copy.deepcopy(model)
    for n in m.graph.node:
        if n.op_type == "MatMulNBits":
            for a in n.attribute:
                if a.name == "accuracy_level":
                    a.i = level
    return m


def worst(want: list, got: list) -> float:
    """The largest |difference| over all outputs, relative to each output's largest |value|."""
    out = 0.0
    for w, g in zip(want, got):
        w = np.asarray(w, np.float64)
        g = np.asarray(g, np.float64)
        assert w.shape == g.shape
        assert np.isfinite(g).all()
        out = max(out, float(np.abs(w - g).max() / max(np.abs(w).max(), 1e-30)))
    return out


# Both models with accuracy_level 0 on their MatMulNBits nodes (full-precision activations, like
# the fused op): float32 differs only by summation order; float16 by where results are rounded.
# Measured on lavapipe: 2.7e-7 to 6.1e-7 (float32), 1.2e-3 to 1.3e-3 (float16).
TIGHT = {np.float32: 1e-5, np.float16: 5e-3}
# Both as written: the original's gate/up at accuracy_level 4 (ONNX Runtime's CPU kernel
# quantizes A to int8 per block), the fused MLPs at full precision. Measured: 5.7e-3 to 1.5e-2.
LOOSE = {np.float32: 5e-2, np.float16: 5e-2}


def check_against_original(orig: onnx.ModelProto, fused_path: Path, library: Path, cfg: Config) -> dict:
    """Logits and KV-cache outputs of the fused model against the original's: both with
    accuracy_level 0 on every MatMulNBits left (tight), and both as written (loose)."""
    fused_model = onnx.load(fused_path)
    fused = session(fused_model, library)
    fused_full = session(with_accuracy_level(fused_model, 0), library)
    full = session(with_accuracy_level(orig, 0))
    shipped = session(orig)
    errors = {}
    for seq, past in STEPS:
        f = feeds(cfg, 2 if seq == 1 else 1, seq, past)
        tight = worst(full.run(None, f), fused_full.run(None, f))
        loose = worst(shipped.run(None, f), fused.run(None, f))
        errors[(seq, past)] = (tight, loose)
        assert tight <= TIGHT[cfg.dtype], (seq, past, tight)
        assert loose <= LOOSE[cfg.dtype], (seq, past, loose)
    return errors


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
def test_builder_decoder(tmp_path, cli, library, dtype):
    cfg = Config(dtype=dtype, layers=3)
    orig = build(cfg)
    src = tmp_path / "model.onnx"
    onnx.save(orig, src)
    dst = tmp_path / "fused.onnx"
    report = fuse(cli, src, dst)

    assert report["skipped"] == []
    assert [f["layer"] for f in report["fused"]] == ["layers.0", "layers.1", "layers.2"]
    for f, (bits, block) in zip(report["fused"], cfg.quant):
        assert (f["bits"], f["block_size"], f["k"], f["n"]) == (bits, block, cfg.hidden, cfg.intermediate)
        assert f["norm"] == "SkipSimplifiedLayerNormalization"
        assert f["residual"] is True
        assert f["epsilon"] == pytest.approx(cfg.epsilon, rel=1e-6)
        assert f["accuracy_level"] == 4
        assert f["dtype"] == ("float16" if dtype == np.float16 else "float32")
    assert report["opset_added"] is False

    m = onnx.load(dst)
    ops = [n.op_type for n in m.graph.node]
    assert ops.count("MatMulNBitsMlp") == 3
    assert "Sigmoid" not in ops
    # q, k, v, o and down per layer, and the lm_head: untouched.
    assert ops.count("MatMulNBits") == 5 * cfg.layers + 1
    # The post-attention norms became part of the fused nodes; the others stay.
    assert ops.count("SkipSimplifiedLayerNormalization") == (cfg.layers - 1) + 1
    for n in m.graph.node:
        if n.op_type == "MatMulNBitsMlp":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            assert n.domain == "com.microsoft"
            assert attrs["accuracy_level"] == 0
            assert attrs["activation"] == b"silu"
            assert len(n.output) == 2 and n.output[1].endswith("post_attention_layernorm/output_3")
    assert {p.key: p.value for p in m.metadata_props} == {p.key: p.value for p in orig.metadata_props}
    assert [(o.domain, o.version) for o in m.opset_import] == [(o.domain, o.version) for o in orig.opset_import]
    assert m.producer_name == orig.producer_name
    names = {n for node in m.graph.node for n in node.output}
    assert all(v.name in names for v in m.graph.value_info), "value_info of removed values dropped"

    check_against_original(orig, dst, library, cfg)


def test_the_comparison_can_fail(tmp_path, cli, library):
    """Swapping gate and up in the fused model must break the tight comparison."""
    cfg = Config(layers=2)
    orig = build(cfg)
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(orig, src)
    fuse(cli, src, dst)
    m = onnx.load(dst)
    for n in m.graph.node:
        if n.op_type == "MatMulNBitsMlp":
            ins = list(n.input)
            ins[3:5], ins[6:8] = ins[6:8], ins[3:5]
            del n.input[:]
            n.input.extend(ins)
    f = feeds(cfg, 1, 3, 0)
    bad = worst(session(with_accuracy_level(orig, 0)).run(None, f), session(with_accuracy_level(m, 0), library).run(None, f))
    assert bad > 10 * TIGHT[np.float32], bad


@pytest.mark.parametrize(
    "variant",
    [
        dict(packed=True),
        dict(packed=True, bias=True),
        dict(bias=True),
        dict(activation="silu_swapped"),
        dict(activation="quickgelu1"),
    ],
    ids=["packed", "packed-bias", "bias", "silu-swapped", "quickgelu-alpha1"],
)
def test_variants_fuse(tmp_path, cli, library, variant):
    cfg = Config(layers=2, quant=[(4, 32), (2, 16)], **variant)
    orig = build(cfg)
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(orig, src)
    report = fuse(cli, src, dst)
    assert report["skipped"] == []
    assert len(report["fused"]) == 2
    for f in report["fused"]:
        assert f["packed"] == bool(variant.get("packed"))
        assert f["gate_bias"] == f["up_bias"] == bool(variant.get("bias"))
    ops = [n.op_type for n in onnx.load(dst).graph.node]
    assert "Split" not in ops and "Add" not in ops and "QuickGelu" not in ops
    if variant.get("packed"):
        inits = {i.name for i in onnx.load(dst).graph.initializer}
        assert not any("gate_up_proj.MatMul.weight_Q" in n and not n.endswith(("_gate", "_up")) for n in inits), "packed weights replaced by their halves"
    check_against_original(orig, dst, library, cfg)


@pytest.mark.parametrize(
    "variant,rule",
    [
        (dict(zero_points=True), "zero-points"),
        (dict(activation="gelu"), "activation"),
        (dict(activation="quickgelu"), "activation"),
    ],
    ids=["zero-points", "gelu", "quickgelu-1.702"],
)
def test_unfusable_left_alone(tmp_path, cli, library, variant, rule):
    cfg = Config(layers=2, **variant)
    orig = build(cfg)
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(orig, src)
    report = fuse(cli, src, dst)
    assert report["fused"] == []
    assert [s["rule"] for s in report["skipped"]] == [rule, rule]
    assert all(s["layer"] in ("layers.0", "layers.1") for s in report["skipped"])
    out = onnx.load(dst)
    assert out.graph == orig.graph, "nothing rewritten"
    f = feeds(cfg, 1, 3, 2)
    for w, g in zip(session(orig).run(None, f), session(dst, library).run(None, f)):
        np.testing.assert_array_equal(w, g)


def test_external_data(tmp_path, cli, library):
    cfg = Config(layers=2, packed=True)
    orig = build(cfg)
    src_dir, out_dir = tmp_path / "in", tmp_path / "out"
    src_dir.mkdir()
    out_dir.mkdir()
    src = src_dir / "model.onnx"
    onnx.save(copy.deepcopy(orig), src, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin")
    dst = out_dir / "fused.onnx"
    report = fuse(cli, src, dst)
    assert len(report["fused"]) == 2
    assert Path(report["external_data"]) == out_dir / "fused.onnx.data"
    m = onnx.load(dst, load_external_data=False)
    locations = {e.value for i in m.graph.initializer for e in i.external_data if e.key == "location"}
    assert locations == {"fused.onnx.data"}
    check_against_original(orig, dst, library, cfg)
    # In place: the output replaces the input and its data file is rewritten beside it.
    fuse(cli, dst, dst)
    check_against_original(orig, dst, library, cfg)
    # Every tensor external, even the small constants ONNX Runtime reads only inline (it cannot
    # load such a model): the output takes tensors under 1 KiB back into the model.
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    onnx.save(copy.deepcopy(orig), tiny / "model.onnx", save_as_external_data=True, location="w.bin", size_threshold=0)
    fuse(cli, tiny / "model.onnx", tiny / "fused.onnx")
    check_against_original(orig, tiny / "fused.onnx", library, cfg)


def test_other_domain(tmp_path, cli, library):
    cfg = Config(layers=2)
    orig = build(cfg)
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(orig, src)
    report = fuse(cli, src, dst, "--domain", "nbits_mlp")
    assert report["opset_added"] is True
    m = onnx.load(dst)
    assert ("nbits_mlp", 1) in [(o.domain, o.version) for o in m.opset_import]
    assert {n.domain for n in m.graph.node if n.op_type == "MatMulNBitsMlp"} == {"nbits_mlp"}
    check_against_original(orig, dst, library, cfg)


def one_node_model(**attrs) -> onnx.ModelProto:
    from onnx import TensorProto, helper, numpy_helper

    k, n, bits, block = 32, 8, 4, 32
    base = dict(K=k, N=n, bits=bits, block_size=block, activation="silu")
    base.update(attrs)
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.integers(0, 255, (n, 1, 16), dtype=np.uint8), "gB"),
        numpy_helper.from_array(np.full((n, 1), 0.01, np.float32), "gS"),
        numpy_helper.from_array(rng.integers(0, 255, (n, 1, 16), dtype=np.uint8), "uB"),
        numpy_helper.from_array(np.full((n, 1), 0.01, np.float32), "uS"),
    ]
    node = helper.make_node("MatMulNBitsMlp", ["A", "", "", "gB", "gS", "", "uB", "uS"], ["Y"], name="mlp", domain="com.microsoft", **base)
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, n])],
        inits,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m


def test_library_runs_a_plain_node(library):
    m = one_node_model()
    a = np.random.default_rng(1).standard_normal((1, 32)).astype(np.float32)
    (y,) = session(m, library).run(None, {"A": a})
    assert y.shape == (1, 8) and np.isfinite(y).all()


@pytest.mark.parametrize(
    "attrs,message",
    [
        (dict(bits=3), "bits"),
        (dict(activation="gelu"), "activation"),
        (dict(N=9), "N"),
    ],
    ids=["bits", "activation", "wrong-N"],
)
def test_library_errors_are_onnxruntime_errors(library, attrs, message):
    m = one_node_model(**attrs)
    a = np.zeros((1, 32), np.float32)
    with pytest.raises(Exception) as e:
        session(m, library).run(None, {"A": a})
    text = str(e.value)
    assert "nbits-mlp" in text and "'mlp'" in text and message in text, text


def test_verify_and_explain(tmp_path, cli, library):
    cfg = Config(layers=2)
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(build(cfg), src)
    r = subprocess.run(
        [str(cli), "fuse", str(src), "-o", str(dst), "--explain", "--verify", "--op-library", str(library),
         "--dim", "sequence_length=3", "--dim", "past_sequence_length=2"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "layers.0: fused -> /model/layers.0/mlp/MatMulNBitsMlp" in r.stdout
    assert "accuracy_level 4 on the projections -> 0" in r.stdout
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True and summary["dims"]["total_sequence_length"] == 5
    assert {o["output"] for o in summary["outputs"]} >= {"logits", "present.1.value"}
    # A tolerance nothing meets makes --verify fail with exit 1.
    r = subprocess.run(
        [str(cli), "fuse", str(src), "-o", str(dst), "--verify", "--op-library", str(library), "--tolerance", "0"],
        capture_output=True, text=True,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["ok"] is False


def test_cli_bad_input(tmp_path, cli):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff")
    r = subprocess.run([str(cli), "fuse", str(bad), "-o", str(tmp_path / "o.onnx")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "bad.onnx" in r.stderr and "error:" in r.stderr
    assert not (tmp_path / "o.onnx").exists()


def test_python_fuse_matches_the_cli(tmp_path, cli):
    """`nbits_mlp.fuse` (the Python package) is the same rewrite as `nbits-mlp fuse`."""
    nbits_mlp = pytest.importorskip("nbits_mlp")
    cfg = Config(dtype=np.float32, layers=2)
    src = tmp_path / "model.onnx"
    onnx.save(build(cfg), src)
    by_cli = fuse(cli, src, tmp_path / "cli.onnx")
    by_py = nbits_mlp.fuse(src, tmp_path / "py.onnx")
    assert [f["layer"] for f in by_py["fused"]] == [f["layer"] for f in by_cli["fused"]] == ["layers.0", "layers.1"]
    assert by_py["skipped"] == by_cli["skipped"]
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    with pytest.raises(ValueError):
        nbits_mlp.fuse(tmp_path / "missing.onnx", tmp_path / "out.onnx")


def test_map_of_a_fused_model(tmp_path, cli):
    """`nbits-mlp map fused.onnx` (and `Runtime.map_model` in Python): one line per distinct
    node shape, in the order of the first such node, each what a map of that shape gives."""
    cfg = Config(layers=4, quant=[(4, 32), (4, 64), (4, 32), (8, 16)])
    src, dst = tmp_path / "model.onnx", tmp_path / "fused.onnx"
    onnx.save(build(cfg), src)
    fuse(cli, src, dst)
    args = [str(cli), "map", str(dst), "--device", "discrete-gpu", "--rows", "1-24", "--json", "--why"]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = json.loads(r.stdout)
    # Layers 0 and 2 share (4, 32); 1 and 3 are alone.
    assert [(l["bits"], l["block_size"]) for l in lines] == [(4, 32), (4, 64), (8, 16)]
    assert lines[0]["model"].endswith("and 1 more like it"), lines[0]["model"]
    assert "more like it" not in lines[1]["model"]
    for l in lines:
        assert (l["k"], l["n"], l["dtype"], l["form"]) == (cfg.hidden, cfg.intermediate, "float32", "skipsum")
        assert l["spans"][0]["first"] == 1 and l["spans"][-1]["last"] == 24
        assert all("why" in s for s in l["spans"][1:])
        one = subprocess.run(
            [str(cli), "map", "--shape", f"{cfg.hidden},{cfg.intermediate}", "--dtype", "f32", "--form", "skipsum",
             "--bits", str(l["bits"]), "--block-size", str(l["block_size"]), "--device", "discrete-gpu",
             "--rows", "1-24", "--json", "--why"],
            capture_output=True, text=True)
        assert one.returncode == 0, one.stderr
        assert json.loads(one.stdout)[0]["spans"] == l["spans"]
    # A model without fused nodes is refused in words.
    r = subprocess.run([str(cli), "map", str(src), "--device", "discrete-gpu"], capture_output=True, text=True)
    assert r.returncode == 2 and "no MatMulNBitsMlp node" in r.stderr, r.stderr

    nbits_mlp = pytest.importorskip("nbits_mlp")
    rt = nbits_mlp.Runtime()
    py = rt.map_model(str(dst), rows=range(1, 25), why=True)
    assert [l["model"] for l in py] == [l["model"] for l in lines]
    for l in py:
        alone = rt.map(K=l["k"], N=l["n"], rows=range(1, 25), dtype="float32", bits=l["bits"],
                       block_size=l["block_size"], skip=True, norm=True, residual=True, why=True)
        assert l["spans"] == alone
    with pytest.raises(ValueError, match="no MatMulNBitsMlp node"):
        rt.map_model(str(src))
