"""The fused MLP on the GPU (lavapipe on a machine without one), against the float64 reference
and against the same math written in numpy and, where installed, PyTorch."""

import threading
import time

import numpy as np
import pytest

import nbits_mlp
from conftest import Layer

F16, F32 = np.float16, np.float32

# (dtype, bits, block_size, K, N, leading dims of A, form). Every dtype with 2, 4 and 8 bits;
# every form; K not a multiple of the block or of 32, odd N; rows 0, 1, a few and many; A of
# rank 2 and 3. Few distinct shapes: each compiles its own pipelines (slow on lavapipe).
CASES = [
    (F32, 4, 32, 128, 64, (1,), "plain"),
    (F32, 4, 32, 100, 33, (7,), "norm"),
    (F32, 2, 16, 72, 40, (2,), "skip+norm"),
    (F32, 8, 32, 96, 24, (2, 3), "residual"),
    (F32, 4, 64, 160, 48, (33,), "biases"),
    (F32, 4, 32, 64, 16, (0,), "plain"),
    (F32, 2, 64, 64, 8, (40,), "plain"),
    (F16, 4, 32, 128, 64, (1,), "residual"),
    (F16, 2, 32, 96, 40, (1,), "plain"),
    (F16, 8, 16, 80, 36, (5,), "norm+gate_bias"),
    (F16, 4, 32, 100, 33, (9,), "biases"),
    (F16, 4, 128, 256, 64, (1, 4), "residual"),
    (F16, 4, 32, 64, 16, (0,), "residual"),
    (F16, 8, 64, 200, 20, (1,), "norm"),
]

FORMS = {
    "plain": dict(),
    "norm": dict(norm=True),
    "skip+norm": dict(norm=True, skip=True),
    "residual": dict(norm=True, skip=True, residual=True),
    "biases": dict(gate_bias=True, up_bias=True),
    "norm+gate_bias": dict(norm=True, gate_bias=True),
}


def case_id(c):
    dtype, bits, bs, K, N, lead, form = c
    return f"{np.dtype(dtype).name}-b{bits}-bs{bs}-K{K}-N{N}-{'x'.join(map(str, lead))}-{form}"


def run_case(rt, c, seed=0):
    dtype, bits, bs, K, N, lead, form = c
    f = FORMS[form]
    layer = Layer(K, N, dtype=dtype, bits=bits, block_size=bs, norm=f.get("norm", False),
                  gate_bias=f.get("gate_bias", False), up_bias=f.get("up_bias", False), seed=seed)
    mlp = layer.mlp(rt)
    a = layer.activations(lead + (K,))
    skip = layer.activations(lead + (K,)) if f.get("skip") else None
    residual = f.get("residual", False)
    out = mlp(a, skip, residual=residual)
    y, r = (out if residual else (out, None))
    return layer, mlp, a, skip, y, r


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_against_reference(rt, c):
    dtype, bits, bs, K, N, lead, form = c
    layer, mlp, a, skip, y, r = run_case(rt, c)
    residual = FORMS[form].get("residual", False)
    assert y.dtype == dtype and y.shape == lead + (N,)
    ry, rr, scale = layer.reference(a, skip, residual=residual)
    assert ry.shape == y.shape
    rows = int(np.prod(lead))
    f16_acc = f16_accumulation(mlp, lead, skip, residual)
    err, tol = nbits_mlp.compare(y, ry, scale, f16_acc)
    assert err <= tol, f"Y: error {err:e} > tolerance {tol:e}"
    if rows:
        assert np.all(np.isfinite(y)) and np.abs(y).max() > 0
    if residual:
        assert r.dtype == dtype and r.shape == a.shape
        err, tol = nbits_mlp.compare(r, rr)
        assert err <= tol, f"residual: error {err:e} > tolerance {tol:e}"


def numpy_mlp(xp, a, skip, layer):
    """The operator's math in float64 on dequantized weights, with array module `xp` (numpy or
    a torch-like namespace providing the same few functions)."""
    kw = layer.kwargs
    K = layer.K
    wg = nbits_mlp.dequantize(layer.gate_B, layer.gate_scales, K, kw["bits"], kw["block_size"])
    wu = nbits_mlp.dequantize(layer.up_B, layer.up_scales, K, kw["bits"], kw["block_size"])
    x = a.astype(np.float64) + (0 if skip is None else skip.astype(np.float64))
    x = x.reshape(-1, K)
    if "norm_scale" in kw:
        x = x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-5)
        x = x * kw["norm_scale"].astype(np.float64)
    g = x @ wg.T + (kw["gate_bias"].astype(np.float64) if "gate_bias" in kw else 0)
    u = x @ wu.T + (kw["up_bias"].astype(np.float64) if "up_bias" in kw else 0)
    return (g / (1 + np.exp(-g)) * u).reshape(a.shape[:-1] + (layer.N,))


def f16_accumulation(mlp, lead, skip, residual=False):
    """Whether the plan for activations with leading dims `lead` accumulates in float16."""
    batch = lead[0] if len(lead) == 2 else None
    return mlp.plan(lead[-1], batch=batch, skip=skip is not None,
                    residual=residual)["f16_accumulation"]


@pytest.mark.parametrize("c", [CASES[1], CASES[4], CASES[7], CASES[11]], ids=case_id)
def test_against_numpy_formulation(rt, c):
    layer, mlp, a, skip, y, _ = run_case(rt, c, seed=3)
    expected = numpy_mlp(np, a, skip, layer)
    ry, _, scale = layer.reference(a, skip)
    np.testing.assert_allclose(ry, expected, rtol=1e-9, atol=1e-12)
    err, tol = nbits_mlp.compare(y, expected, scale, f16_accumulation(mlp, c[5], skip))
    assert err <= tol


@pytest.mark.parametrize("c", [CASES[2], CASES[3], CASES[9]], ids=case_id)
def test_against_pytorch(rt, c):
    torch = pytest.importorskip("torch")
    layer, mlp, a, skip, y, _ = run_case(rt, c, seed=5)
    kw = layer.kwargs
    K = layer.K
    t = lambda v: torch.from_numpy(np.asarray(v, dtype=np.float64))  # noqa: E731
    wg = t(nbits_mlp.dequantize(layer.gate_B, layer.gate_scales, K, kw["bits"], kw["block_size"]))
    wu = t(nbits_mlp.dequantize(layer.up_B, layer.up_scales, K, kw["bits"], kw["block_size"]))
    x = t(a) + (0 if skip is None else t(skip))
    if "norm_scale" in kw:
        x = torch.nn.functional.rms_norm(x, (K,), weight=t(kw["norm_scale"]), eps=1e-5)
    g = torch.nn.functional.linear(x, wg, t(kw["gate_bias"]) if "gate_bias" in kw else None)
    u = torch.nn.functional.linear(x, wu, t(kw["up_bias"]) if "up_bias" in kw else None)
    expected = (torch.nn.functional.silu(g) * u).numpy()
    ry, _, scale = layer.reference(a, skip)
    np.testing.assert_allclose(ry, expected, rtol=1e-9, atol=1e-12)
    err, tol = nbits_mlp.compare(y, expected)
    assert err <= tol


def test_out_is_written_and_returned(rt):
    layer = Layer(64, 24, dtype=F16, norm=True, seed=11)
    mlp = layer.mlp(rt)
    a, skip = layer.activations((3, 64)), layer.activations((3, 64))
    y0, r0 = mlp(a, skip, residual=True)
    out = np.full((3, 24), np.nan, F16)
    y = mlp(a, skip, out=out)
    assert y is out and np.array_equal(out, y0)
    r_out = np.full((3, 64), np.nan, F16)
    y, r = mlp(a, skip, residual=True, out=(None, r_out))
    assert r is r_out and np.array_equal(r_out, r0) and np.array_equal(y, y0)
    with pytest.raises(ValueError, match=r"out \(Y\): expected float16 \[3, 24\], got float32 \[3, 24\]"):
        mlp(a, skip, out=np.empty((3, 24), F32))
    with pytest.raises(ValueError, match=r"out \(Y\): expected float16 \[3, 24\], got float16 \[24, 3\]"):
        mlp(a, skip, out=np.empty((24, 3), F16))
    with pytest.raises(ValueError, match="C-contiguous"):
        mlp(a, skip, out=np.empty((24, 3), F16).T)
    ro = np.empty((3, 24), F16)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="cannot be written"):
        mlp(a, skip, out=ro)


def test_inputs_of_any_layout_and_array_likes(rt):
    layer = Layer(64, 16, dtype=F32, seed=12)
    mlp = layer.mlp(rt)
    a = layer.activations((64, 4))
    y = mlp(np.ascontiguousarray(a.T))
    assert np.array_equal(mlp(a.T), y)  # a transposed view
    assert np.array_equal(mlp(memoryview(np.ascontiguousarray(a.T))), y)
    # A list becomes float64 in numpy, which the operator does not take.
    with pytest.raises(ValueError, match=r"input 0 `A`: dtype float64 is not allowed for T1"):
        mlp(a.T.tolist())


def test_weights_reused_and_memory_flat(rt):
    """1,000 calls on one weight set: no plan, pipeline or memory growth."""
    layer = Layer(128, 64, dtype=F16, norm=True, seed=13)
    mlp = layer.mlp(rt)
    a, skip = layer.activations((2, 128)), layer.activations((2, 128))
    y0 = mlp(a, skip)
    out = np.empty_like(y0)
    for _ in range(50):
        mlp(a, skip)
        mlp(a, skip, out=out)
    stats = rt.stats()
    before = rss_kib()
    for _ in range(500):
        mlp(a, skip)
        mlp(a, skip, out=out)
    after = rss_kib()
    assert rt.stats() == stats
    assert np.array_equal(out, y0)
    assert after - before < 4096, f"RSS grew by {after - before} KiB over 1,000 calls"


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def test_gil_released_while_the_gpu_works(rt):
    """Another Python thread runs while a call is on the GPU: with the GIL held for the call it
    could not run at all in between."""
    layer = Layer(1024, 1024, dtype=F32, seed=14)
    mlp = layer.mlp(rt)
    a = layer.activations((16, 1024))
    mlp(a)  # compile first
    span = {}

    def work():
        span["start"] = time.perf_counter()
        mlp(a)
        mlp(a)
        span["end"] = time.perf_counter()

    ticks = []
    th = threading.Thread(target=work)
    th.start()
    while th.is_alive():
        ticks.append(time.perf_counter())
    th.join()
    start, end = span["start"], span["end"]
    inside = [t for t in ticks if start + 0.1 * (end - start) < t < end - 0.1 * (end - start)]
    assert inside, f"no tick of the main thread during {1e3 * (end - start):.1f} ms of GPU work"


def test_threads_share_one_layer(rt):
    layer = Layer(64, 32, dtype=F32, seed=15)
    mlp = layer.mlp(rt)
    inputs = [layer.activations((r, 64)) for r in (1, 2, 3, 4)]
    expected = [mlp(a) for a in inputs]
    errors = []

    def work(i):
        for _ in range(20):
            if not np.array_equal(mlp(inputs[i]), expected[i]):
                errors.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_plan_and_explain(rt):
    layer = Layer(128, 64, dtype=F16, norm=True, seed=16)
    mlp = layer.mlp(rt)
    p = mlp.plan(1, skip=True, residual=True)
    assert isinstance(p["variant"], str) and p["passes"]
    assert all(len(x["dispatch"]) == 3 for x in p["passes"])
    assert p["dtype"] == "float16" and p["rows"] == 1
    assert any(v["variant"] == p["variant"] and v["applies"] for v in p["verdicts"])
    e = mlp.plan(1, skip=True, residual=True, explain=True)
    assert e["variant"] == p["variant"]
    rejected = [v for v in e["verdicts"] if not v["applies"]]
    assert rejected and all(v.get("rejected_by") for v in rejected)
    assert any(v.get("why") for v in rejected)
    # The same call described by shape only, no weights.
    x = rt.explain(K=128, N=64, rows=1, dtype="float16", skip=True, norm=True, residual=True)
    assert x["variant"] == p["variant"]
    assert [v["variant"] for v in x["verdicts"]] == [v["variant"] for v in e["verdicts"]]
    # Llama-3.1-8B's shape plans without weights (and without compiling anything).
    big = rt.explain(K=4096, N=14336, rows=128, batch=1, dtype="float32")
    assert big["rows"] == 128 and big["outputs"][0]["shape"] == [1, 128, 14336]


def test_tunables_choose_another_kernel(rt):
    """`tunables=` plans every call of the layer with those overrides (the CLI's `--tunable`):
    the few-rows kernel turned off moves 3 rows of an f16 layer to the multi-row gemv, and both
    agree with the reference; `explain` takes them too; the layer reports them."""
    layer = Layer(256, 64, dtype=F16, seed=19)
    plain = layer.mlp(rt)
    other = rt.mlp(*layer.weights(), **layer.kwargs, tunables={"GEMVP_MAX_ROWS": 0})
    assert plain.tunables == {} and other.tunables == {"GEMVP_MAX_ROWS": 0}
    assert "tunables={\"GEMVP_MAX_ROWS\": 0}" in repr(other)
    a = layer.activations((3, 256))
    ry, _, scale = layer.reference(a)
    variants = set()
    for mlp in (plain, other):
        y = mlp(a)
        err, tol = nbits_mlp.compare(y, ry, scale, mlp.plan(3)["f16_accumulation"])
        assert err <= tol, f"{mlp.plan(3)['variant']}: error {err:e} > tolerance {tol:e}"
        variants.add(mlp.plan(3)["variant"])
    assert plain.plan(3)["variant"].startswith("gemvp_"), variants
    assert other.plan(3)["variant"].startswith("gemvr_"), variants
    e = rt.explain(K=256, N=64, rows=3, tunables={"GEMVP_MAX_ROWS": 0})
    assert e["variant"] == other.plan(3)["variant"]


def test_map(rt):
    """`Runtime.map` groups row counts into spans of one kernel, each what `explain` plans at
    its row counts (variant and workgroup sizes), covering exactly the rows asked for; tunables
    move its spans; a call the op refuses names its row count."""
    rows = [9, 1, 2, 3, 4, 8, 16, 17, 2]
    spans = rt.map(K=256, N=64, rows=rows, dtype="float16", skip=True, norm=True)
    assert spans[0]["first"] == 1 and spans[-1]["last"] == 17
    covered = []
    for s in spans:
        assert s["first"] <= s["last"]
        assert s["family"] and s["variant"] and s["passes"]
        inside = [r for r in sorted(set(rows)) if s["first"] <= r <= s["last"]]
        assert inside and inside[0] == s["first"] and inside[-1] == s["last"]
        covered += inside
        for r in inside:
            plan = rt.explain(K=256, N=64, rows=r, skip=True, norm=True)
            assert plan["variant"] == s["variant"], r
            active = [p for p in plan["passes"] if not p["skipped"]]
            assert [p["id"] for p in active] == [p["id"] for p in s["passes"]], r
            for p, sp in zip(active, s["passes"]):
                wg = p["dispatch"][0] * p["dispatch"][1] * p["dispatch"][2]
                assert sp["min_workgroups"] <= wg <= sp["max_workgroups"], r
                size = p["workgroup_size"]
                assert size[0] * size[1] * size[2] == sp["threads"], r
    assert covered == sorted(set(rows))
    for a, b in zip(spans, spans[1:]):
        assert (a["variant"], [p["threads"] for p in a["passes"]], a.get("form")) != (
            b["variant"],
            [p["threads"] for p in b["passes"]],
            b.get("form"),
        )
    # The default rows: 1-512. Without the few-rows kernel, 3 rows go elsewhere.
    full = rt.map(K=256, N=64, dtype="float32")
    assert full[0]["first"] == 1 and full[-1]["last"] == 512
    off = rt.map(K=256, N=64, rows=[3], dtype="float16", tunables={"GEMVP_MAX_ROWS": 0})
    assert off[0]["variant"] == rt.explain(K=256, N=64, rows=3, tunables={"GEMVP_MAX_ROWS": 0})["variant"]
    with pytest.raises(ValueError, match="rows 1: .*bits"):
        rt.map(K=256, N=64, rows=[1, 2], bits=3)
    with pytest.raises(ValueError, match="rows: 0"):
        rt.map(K=256, N=64, rows=[0, 1])
    with pytest.raises(ValueError, match="rows: 70000 is not a row count from 1 to 65536"):
        rt.map(K=256, N=64, rows=[1, 70000])
    # A huge iterable is refused as it is read, not held first.
    with pytest.raises(ValueError, match="more than 65536 row counts"):
        rt.map(K=256, N=64, rows=(1 + i % 8 for i in range(10**12)))
    with pytest.raises(TypeError):
        rt.map(K=256, N=64, rows=["x"])
    with pytest.raises(ValueError, match="dtype"):
        rt.map(K=256, N=64, dtype="bfloat16")


def test_compiled(rt):
    layer = Layer(128, 64, dtype=F16, norm=True, seed=18)
    mlp = layer.mlp(rt)
    c = mlp.compiled(3, skip=True, residual=True)
    assert c["adapter"] == rt.adapter["name"]
    planned = mlp.plan(3, skip=True, residual=True)["passes"]
    if c["note"] is not None:
        # A driver without compiler statistics (lavapipe): said so, nothing listed.
        assert c["passes"] == [] and "statistics" in c["note"]
    else:
        assert [p["pass"] for p in c["passes"]] == [p["id"] for p in planned]
        for p in c["passes"]:
            assert p["executables"] and all(e["statistics"] for e in p["executables"])
    if c["cores"] is not None:
        assert c["cores"]["sm_count"] > 0 and c["cores"]["warps_per_sm"] > 0


def test_time(rt):
    layer = Layer(128, 64, dtype=F32, seed=17)
    mlp = layer.mlp(rt)
    if rt.has_timestamps:
        t = mlp.time(2, 3)
        assert t > 0
    else:
        with pytest.raises(nbits_mlp.GpuError, match="timestamp-query"):
            mlp.time(2, 3)
    with pytest.raises(ValueError, match="iters must be > 0"):
        mlp.time(1, 0)


def test_adapters_and_runtime():
    listed = nbits_mlp.adapters()
    assert listed and all({"name", "backend", "type", "features"} <= set(a) for a in listed)
    # The SM count where the driver reports it (NVIDIA), else None (lavapipe).
    for a in listed:
        cores = a["shader_cores"]
        assert cores is None or (isinstance(cores, int) and cores > 0), a
        if a["type"] == "Cpu":
            assert cores is None, a
    with pytest.raises(nbits_mlp.GpuError, match="no adapter name contains `no-such-adapter`"):
        nbits_mlp.Runtime("no-such-adapter")
    with pytest.raises(ValueError, match="backends: unknown backend `cuda`"):
        nbits_mlp.Runtime(backends="cuda")


def test_runtime_properties(rt):
    assert rt.adapter["name"] and rt.adapter["backend"] and rt.adapter["type"]
    assert rt.features == sorted(rt.features) and all(isinstance(f, str) for f in rt.features)
    assert set(rt.stats()) == {"pipelines", "prepared_plans", "cached_plans"}
    layer = Layer(64, 16, dtype=F16, norm=True, seed=18)
    mlp = layer.mlp(rt)
    assert (mlp.K, mlp.N, mlp.bits, mlp.block_size, mlp.dtype, mlp.has_norm) == (
        64, 16, 4, 32, "float16", True)
    assert "Mlp(K=64, N=16" in repr(mlp) and "Runtime(adapter=" in repr(rt)


def test_docstrings_and_signatures():
    doc = nbits_mlp.Runtime.mlp.__doc__
    assert "gate_B" in doc and "block_size" in doc
    assert "gate_B, gate_scales, up_B, up_scales, *, K, N=None" in nbits_mlp.Runtime.mlp.__text_signature__
    assert "residual=True" in nbits_mlp.Mlp.__doc__ and "out=" in nbits_mlp.Mlp.__doc__
    assert nbits_mlp.quantize.__doc__ and nbits_mlp.reference.__doc__


@pytest.mark.parametrize("rows", [1, 4, 16])
def test_normalised_rows_past_float16(rt, rows):
    """A norm_scale that takes a normalised element past float16's range while Y stays small:
    each row holds one large value (1000 among 0.01s, ~16 once normalised) where norm_scale is
    8000, so that element is ~128 000 after the norm. The layer's plan names the bound
    (sqrt(K) times norm_scale's largest magnitude), the call is planned with float32 rows, and Y
    matches the float64 reference, finite (ONNX Runtime's own norm gives infinities here)."""
    K, N = 256, 64
    w = np.random.default_rng(7).standard_normal((N, K)).astype(np.float32) * 1e-4
    b, s = nbits_mlp.quantize(w.astype(F16), 4, 32)
    g = np.ones(K, F16)
    g[37:41] = 8000
    kwargs = dict(K=K, N=N, bits=4, block_size=32, norm_scale=g)
    a = np.full((rows, K), 0.01, F16)
    for r in range(rows):
        a[r, 37 + r % 4] = 1000
    mlp = rt.mlp(b, s, b, s, **kwargs)
    plan = mlp.plan(rows)
    if plan["f16_accumulation"]:  # the gemv and the few-rows kernel hold such rows in float16
        assert any("normalised rows held as float16" in r for r in plan["ranges"]), plan["ranges"]
    y = mlp(a)
    ry, scale = nbits_mlp.reference(a, b, s, b, s, error_scale=True, **kwargs)
    assert np.all(np.isfinite(y)) and np.abs(ry).max() > 0.1
    err, tol = nbits_mlp.compare(y, ry, scale, False)
    assert err <= tol, f"Y: error {err:e} > tolerance {tol:e}"


@pytest.mark.parametrize("rows", [1, 4])
@pytest.mark.parametrize("norm", [False, True])
def test_float16_values_past_the_float16_sums(rt, rows, norm):
    """Activations that the float16-accumulating kernels (the gemv at 1 row, the few-rows
    kernel at 4) cannot sum: constant weights quantize to code 0 everywhere (code - zero = -8)
    and every activation (after the norm) is 768, so each float16 sum of 16 products would be
    -98304, past float16's range. The layer plans such a call without float16 sums (as the Rust
    `run` does, from the activations and its host copy of norm_scale) and Y matches the
    reference, finite."""
    K, N = 256, 64
    b, s = nbits_mlp.quantize(np.full((N, K), 5e-6, F16), 4, 32)
    kwargs = dict(K=K, N=N, bits=4, block_size=32)
    if norm:
        kwargs["norm_scale"] = np.full(K, 768, F16)
        a = np.ones((rows, K), F16)
    else:
        a = np.full((rows, K), 768, F16)
    mlp = rt.mlp(b, s, b, s, **kwargs)
    plan = mlp.plan(rows)
    assert plan["f16_accumulation"] and "float16 sums" in plan["ranges"][0]
    y = mlp(a)
    ry, scale = nbits_mlp.reference(a, b, s, b, s, error_scale=True, **kwargs)
    assert np.all(np.isfinite(y)) and np.abs(ry).max() > 0.1
    err, tol = nbits_mlp.compare(y, ry, scale, False)
    assert err <= tol, f"Y: error {err:e} > tolerance {tol:e}"
