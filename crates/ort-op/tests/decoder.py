"""Small decoders in the layout ONNX Runtime GenAI's model builder writes, built with `onnx`.

Per layer (names as the builder writes them, with MatMulNBitsQuantizer's `_Q4`/`_Q8` suffixes):

    input_layernorm            SimplifiedLayerNormalization (layer 0) / SkipSimplifiedLayerNormalization
    attn q/k/v_proj            MatMulNBits, GroupQueryAttention (rotary), o_proj MatMulNBits
    post_attention_layernorm   SkipSimplifiedLayerNormalization (outputs [out0, "", "", out3])
    mlp                        gate_proj / up_proj MatMulNBits, act_fn Sigmoid + Mul, Mul, down_proj

then the final SkipSimplifiedLayerNormalization and the lm_head MatMulNBits. Inputs `input_ids`,
`attention_mask`, `past_key_values.<i>.key/value`; outputs `logits`, `present.<i>.key/value`.
Weights are random codes with random positive scales (symmetric: no zero points), packed in
the MatMulNBits layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


@dataclass
class Config:
    """What to build."""

    layers: int = 2
    hidden: int = 96
    intermediate: int = 160
    heads: int = 6
    kv_heads: int = 2
    vocab: int = 120
    max_len: int = 64
    # (bits, block_size) of each layer's MLP and attention projections, cycled over the layers.
    quant: list = field(default_factory=lambda: [(4, 32), (4, 64), (8, 16)])
    dtype: type = np.float32
    epsilon: float = 1e-6
    accuracy_level: int = 4
    # Variants of the MLP.
    packed: bool = False  # one gate_up MatMulNBits of 2N columns + Split
    bias: bool = False  # bias Adds after the gate and up projections
    activation: str = "silu"  # silu | silu_swapped | quickgelu1 | gelu | quickgelu
    zero_points: bool = False  # asymmetric gate/up (not fusable)
    seed: int = 0


def pack(codes: np.ndarray, bits: int, block: int) -> np.ndarray:
    """Packs codes [N, K] into MatMulNBits blobs [N, k_blocks, block * bits / 8]."""
    n, k = codes.shape
    kb = -(-k // block)
    padded = np.zeros((n, kb * block), dtype=np.uint8)
    padded[:, :k] = codes
    per = 8 // bits
    grouped = padded.reshape(n, kb, block // per, per).astype(np.uint32)
    out = np.zeros((n, kb, block // per), dtype=np.uint32)
    for j in range(per):
        out |= grouped[..., j] << (bits * j)
    return out.astype(np.uint8)


class Builder:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.rng = np.random.default_rng(cfg.seed)
        self.nodes: list = []
        self.inits: list = []
        self.value_info: list = []
        self.elem = TensorProto.FLOAT16 if cfg.dtype == np.float16 else TensorProto.FLOAT

    def init(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, name, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))

    def value(self, name, last_dim):
        self.value_info.append(
            helper.make_tensor_value_info(name, self.elem, ["batch_size", "sequence_length", last_dim])
        )

    def quantized(self, base: str, n: int, k: int, bits: int, block: int, zero_points=False):
        """Random weights for a MatMulNBits node: B, scales (and zero points) initializer names."""
        codes = self.rng.integers(0, 1 << bits, size=(n, k), dtype=np.uint8)
        kb = -(-k // block)
        # Scales so that each output has a variance near its input's.
        scale = 1.0 / (np.sqrt(k) * (1 << (bits - 1)) * 0.6)
        scales = (self.rng.uniform(0.5, 1.5, size=(n, kb)) * scale).astype(self.cfg.dtype)
        b = self.init(f"{base}.weight_Q{bits}", pack(codes, bits, block))
        s = self.init(f"{base}.weight_scales", scales)
        names = [b, s]
        if zero_points:
            zp_codes = self.rng.integers(0, 1 << bits, size=(n, kb), dtype=np.uint8)
            per = 8 // bits
            kbp = -(-kb // per)
            zpp = np.zeros((n, kbp * per), dtype=np.uint8)
            zpp[:, :kb] = zp_codes
            zp = np.zeros((n, kbp), dtype=np.uint32)
            for j in range(per):
                zp |= zpp.reshape(n, kbp, per)[..., j].astype(np.uint32) << (bits * j)
            names.append(self.init(f"{base}.weight_zp", zp.astype(np.uint8)))
        return names

    def matmul(self, basename, root, n, k, bits, block, out_name=None, zero_points=False):
        """A MatMulNBits node as MatMulNBitsQuantizer writes it; returns its output name."""
        name = f"{basename}_Q{bits}"
        out = out_name or f"{basename}/output_0"
        weights = self.quantized(basename[1:].replace("/", "."), n, k, bits, block, zero_points)
        self.node(
            "MatMulNBits",
            [root] + weights,
            [out],
            name,
            MS,
            K=k,
            N=n,
            bits=bits,
            block_size=block,
            accuracy_level=self.cfg.accuracy_level,
        )
        if out_name is None:
            self.value(out, n)
        return out

    def bias_add(self, name, root, n):
        out = f"{name}/output_0"
        b = self.init(name[1:].replace("/", ".") + ".bias", (self.rng.standard_normal(n) * 0.1).astype(self.cfg.dtype))
        self.node("Add", [root, b], [out], name)
        self.value(out, n)
        return out

    def norm_weight(self, name):
        w = (1.0 + 0.1 * self.rng.standard_normal(self.cfg.hidden)).astype(self.cfg.dtype)
        return self.init(name, w)

    def mlp(self, i, root, bits, block):
        c = self.cfg
        pre = f"/model/layers.{i}/mlp"
        if c.packed:
            gu = self.matmul(f"{pre}/gate_up_proj/MatMul", root, 2 * c.intermediate, c.hidden, bits, block)
            if c.bias:
                gu = self.bias_add(f"{pre}/gate_up_proj/Add", gu, 2 * c.intermediate)
            split = self.init(f"{pre[1:].replace('/', '.')}.split_sizes", np.array([c.intermediate] * 2, np.int64))
            gate, up = f"{pre}/Split/output_0", f"{pre}/Split/output_1"
            self.node("Split", [gu, split], [gate, up], f"{pre}/Split", axis=-1)
            self.value(gate, c.intermediate)
            self.value(up, c.intermediate)
        else:
            gate = self.matmul(f"{pre}/gate_proj/MatMul", root, c.intermediate, c.hidden, bits, block, zero_points=c.zero_points)
            up = self.matmul(f"{pre}/up_proj/MatMul", root, c.intermediate, c.hidden, bits, block, zero_points=c.zero_points)
            if c.bias:
                gate = self.bias_add(f"{pre}/gate_proj/Add", gate, c.intermediate)
                up = self.bias_add(f"{pre}/up_proj/Add", up, c.intermediate)
        act = f"{pre}/act_fn"
        if c.activation in ("silu", "silu_swapped"):
            self.node("Sigmoid", [gate], [f"{act}/Sigmoid/output_0"], f"{act}/Sigmoid")
            self.value(f"{act}/Sigmoid/output_0", c.intermediate)
            ins = [gate, f"{act}/Sigmoid/output_0"]
            if c.activation == "silu_swapped":
                ins.reverse()
            self.node("Mul", ins, [f"{act}/Mul/output_0"], f"{act}/Mul")
            act_out = f"{act}/Mul/output_0"
        elif c.activation in ("quickgelu1", "quickgelu"):
            kw = {"alpha": 1.0} if c.activation == "quickgelu1" else {}
            self.node("QuickGelu", [gate], [f"{act}/QuickGelu/output_0"], f"{act}/QuickGelu", MS, **kw)
            act_out = f"{act}/QuickGelu/output_0"
        elif c.activation == "gelu":
            self.node("Gelu", [gate], [f"{act}/Gelu/output_0"], f"{act}/Gelu", MS)
            act_out = f"{act}/Gelu/output_0"
        else:
            raise ValueError(c.activation)
        self.value(act_out, c.intermediate)
        mul = f"{pre}/Mul/output_0"
        self.node("Mul", [act_out, up], [mul], f"{pre}/Mul")
        self.value(mul, c.intermediate)
        return self.matmul(f"{pre}/down_proj/MatMul", mul, c.hidden, c.intermediate, bits, block)

    def attention(self, i, root, seqlens_k, total_len, cos, sin):
        c = self.cfg
        head = c.hidden // c.heads
        pre = f"/model/layers.{i}/attn"
        bits, block = c.quant[i % len(c.quant)]
        q = self.matmul(f"{pre}/q_proj/MatMul", root, c.hidden, c.hidden, bits, block)
        k = self.matmul(f"{pre}/k_proj/MatMul", root, c.kv_heads * head, c.hidden, bits, block)
        v = self.matmul(f"{pre}/v_proj/MatMul", root, c.kv_heads * head, c.hidden, bits, block)
        out = f"{pre}/GroupQueryAttention/output_0"
        self.node(
            "GroupQueryAttention",
            [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens_k, total_len, cos, sin],
            [out, f"present.{i}.key", f"present.{i}.value"],
            f"{pre}/GroupQueryAttention",
            MS,
            num_heads=c.heads,
            kv_num_heads=c.kv_heads,
            do_rotary=1,
            rotary_interleaved=0,
            scale=float(1.0 / np.sqrt(head)),
            local_window_size=-1,
        )
        self.value(out, c.hidden)
        return self.matmul(f"{pre}/o_proj/MatMul", out, c.hidden, c.hidden, bits, block)

    def build(self) -> onnx.ModelProto:
        c = self.cfg
        head = c.hidden // c.heads
        emb = self.init("model.embed_tokens.weight", (self.rng.standard_normal((c.vocab, c.hidden))).astype(c.dtype))
        self.node("Gather", [emb, "input_ids"], ["/model/embed_tokens/Gather/output_0"], "/model/embed_tokens/Gather")
        # Attention mask -> seqlens_k, total_sequence_length (the builder's reformatting for GQA).
        m = "/model/attn_mask_reformat/attn_mask_subgraph"
        one = self.init("/model/constants/INT64/[1]", np.array([1], np.int64))
        self.node("ReduceSum", ["attention_mask", one], [f"{m}/ReduceSum/output_0"], f"{m}/ReduceSum", keepdims=0)
        one_s = self.init("/model/constants/INT64/1", np.array(1, np.int64))
        self.node("Sub", [f"{m}/ReduceSum/output_0", one_s], [f"{m}/Sub/output_0"], f"{m}/Sub")
        self.node("Cast", [f"{m}/Sub/output_0"], [f"{m}/Sub/Cast/output_0"], f"{m}/Sub/Cast", to=TensorProto.INT32)
        self.node("Shape", ["attention_mask"], [f"{m}/Shape/output_0"], f"{m}/Shape")
        self.node("Gather", [f"{m}/Shape/output_0", one_s], [f"{m}/Gather/output_0"], f"{m}/Gather", axis=0)
        self.node("Cast", [f"{m}/Gather/output_0"], [f"{m}/Gather/Cast/output_0"], f"{m}/Gather/Cast", to=TensorProto.INT32)
        seqlens_k, total_len = f"{m}/Sub/Cast/output_0", f"{m}/Gather/Cast/output_0"
        inv = 1.0 / (10000 ** (np.arange(0, head, 2) / head))
        freqs = np.outer(np.arange(c.max_len), inv)
        cos = self.init("cos_cache", np.cos(freqs).astype(c.dtype))
        sin = self.init("sin_cache", np.sin(freqs).astype(c.dtype))

        root = "/model/embed_tokens/Gather/output_0"
        skip = None
        for i in range(c.layers):
            pre = f"/model/layers.{i}"
            w = self.norm_weight(f"model.layers.{i}.input_layernorm.weight")
            out0 = f"{pre}/input_layernorm/output_0"
            if skip is None:
                self.node(
                    "SimplifiedLayerNormalization", [root, w], [out0], f"{pre}/input_layernorm/LayerNorm",
                    axis=-1, epsilon=c.epsilon, stash_type=1,
                )
            else:
                out3 = f"{pre}/input_layernorm/output_3"
                self.node(
                    "SkipSimplifiedLayerNormalization", [root, skip, w], [out0, "", "", out3],
                    f"{pre}/input_layernorm/SkipLayerNorm", MS, epsilon=c.epsilon,
                )
                self.value(out3, c.hidden)
                root = out3
            self.value(out0, c.hidden)
            attn = self.attention(i, out0, seqlens_k, total_len, cos, sin)
            w = self.norm_weight(f"model.layers.{i}.post_attention_layernorm.weight")
            out0 = f"{pre}/post_attention_layernorm/output_0"
            out3 = f"{pre}/post_attention_layernorm/output_3"
            self.node(
                "SkipSimplifiedLayerNormalization", [root, attn, w], [out0, "", "", out3],
                f"{pre}/post_attention_layernorm/SkipLayerNorm", MS, epsilon=c.epsilon,
            )
            self.value(out0, c.hidden)
            self.value(out3, c.hidden)
            root = out3
            bits, block = c.quant[i % len(c.quant)]
            skip = self.mlp(i, out0, bits, block)
        w = self.norm_weight("model.norm.weight")
        final = "/model/norm/output_0"
        self.node("SkipSimplifiedLayerNormalization", [root, skip, w], [final], "/model/norm/SkipLayerNorm", MS, epsilon=c.epsilon)
        self.value(final, c.hidden)
        self.matmul("/lm_head/MatMul", final, c.vocab, c.hidden, 4, 32, out_name="logits")

        kv = ["batch_size", c.kv_heads, "past_sequence_length", head]
        inputs = [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
        ]
        outputs = [helper.make_tensor_value_info("logits", self.elem, ["batch_size", "sequence_length", c.vocab])]
        for i in range(c.layers):
            for kind in ("key", "value"):
                inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", self.elem, kv))
                outputs.append(
                    helper.make_tensor_value_info(
                        f"present.{i}.{kind}", self.elem, ["batch_size", c.kv_heads, "total_sequence_length", head]
                    )
                )
        graph = helper.make_graph(self.nodes, "main_graph", inputs, outputs, self.inits, value_info=self.value_info)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)],
            producer_name="onnxruntime-genai",
        )
        model.ir_version = 10
        helper.set_model_props(model, {"nbits_mlp_test": "builder layout", "layers": str(c.layers)})
        return model


def build(cfg: Config) -> onnx.ModelProto:
    return Builder(cfg).build()


def feeds(cfg: Config, batch: int, seq: int, past: int, seed: int = 1) -> dict:
    """Inputs for one step: `seq` new tokens after `past` cached ones."""
    rng = np.random.default_rng(seed)
    head = cfg.hidden // cfg.heads
    f = {
        "input_ids": rng.integers(0, cfg.vocab, size=(batch, seq), dtype=np.int64),
        "attention_mask": np.ones((batch, past + seq), dtype=np.int64),
    }
    for i in range(cfg.layers):
        for kind in ("key", "value"):
            f[f"past_key_values.{i}.{kind}"] = rng.standard_normal((batch, cfg.kv_heads, past, head)).astype(cfg.dtype)
    return f
