"""Where the built artefacts are: the `nbits-mlp` executable and the custom-op library.

`NBITS_MLP_BIN` and `NBITS_MLP_ORT_OP` name them; otherwise they are looked up in the cargo
target directory (`CARGO_TARGET_DIR`, else `target/` at the repository root), debug first.
Build them with `cargo build -p nbits-mlp -p nbits-mlp-ort-op`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _artefact(env: str, name: str) -> Path:
    if os.environ.get(env):
        p = Path(os.environ[env])
        if not p.is_file():
            pytest.fail(f"{env}={p}: no such file")
        return p
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        p = target / profile / name
        if p.is_file():
            return p
    pytest.fail(f"{name} not found in {target}/debug or /release: run `cargo build -p nbits-mlp -p nbits-mlp-ort-op` (or set {env})")


@pytest.fixture(scope="session")
def cli() -> Path:
    return _artefact("NBITS_MLP_BIN", "nbits-mlp.exe" if os.name == "nt" else "nbits-mlp")


@pytest.fixture(scope="session")
def library() -> Path:
    if sys.platform == "darwin":
        name = "libnbits_mlp_ort_op.dylib"
    elif os.name == "nt":
        name = "nbits_mlp_ort_op.dll"
    else:
        name = "libnbits_mlp_ort_op.so"
    return _artefact("NBITS_MLP_ORT_OP", name)
