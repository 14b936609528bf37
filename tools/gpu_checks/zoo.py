"""The zoo's kernel sources beside these scripts in a GPU pack (sweep --pack copies them)."""

import importlib.util
import os
import sys


def load_zoo_kernel(filename, name):
    """The Triton kernel `name` of the zoo source `filename` next to this file."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(f"zoo_{name}", os.path.join(here, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def parse_shapes(text, fields, script):
    """Shapes "a,b,...;a,b,..." of len(fields) integers each (exits with a message otherwise)."""
    shapes = []
    for item in text.split(";"):
        try:
            values = [int(v) for v in item.split(",")]
        except ValueError:
            values = []
        if len(values) != len(fields):
            sys.exit(f"{script}: a shape is {','.join(fields)}, got '{item}'")
        shapes.append(tuple(values))
    return shapes


def parse_dtypes(text, script):
    """The torch dtypes named in "bf16,f16,f32" as (name, dtype) pairs (exits on an unknown one)."""
    import torch

    known = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    for name in text.split(","):
        if name not in known:
            sys.exit(f"{script}: unknown dtype '{name}' (bf16, f16, f32)")
    return [(name, known[name]) for name in text.split(",")]


def environment():
    """What each result line records about the host: the GPU and the library versions."""
    import torch
    import triton

    return {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
            "triton": triton.__version__}
