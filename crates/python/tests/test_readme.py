"""The package README's example runs as written and computes what it says."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(rt, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "no python block in the README"
    ns = {}
    exec(compile(blocks[0], str(README), "exec"), ns)
    y, expected, a = ns["y"], ns["expected"], ns["a"]
    assert y.dtype == np.float16 and y.shape == (a.shape[0], ns["N"])
    assert np.abs(y - expected).max() <= 1e-2 * np.abs(expected).max()
    variant, err = capsys.readouterr().out.split()
    assert variant == ns["mlp"].plan(a.shape[0])["variant"] and float(err) <= 1e-2
