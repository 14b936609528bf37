"""use_bundle.py BUNDLE_DIR: rms_norm_kernel (examples/rms_norm) from a tuned bundle, in Python."""
import sys

import numpy as np
import tessel

bundle = tessel.Bundle(sys.argv[1])
print("kernels:", bundle.kernels, "on", bundle.device_kind)
x = np.random.default_rng().standard_normal((16, 1000), dtype=np.float32)
w = np.ones(1000, np.float32)
y = np.full_like(x, np.nan)
print("rms_norm_kernel:", bundle.launch("rms_norm_kernel", x_ptr=x, w_ptr=w, y_ptr=y))
bundle.synchronize()
want = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6)
assert np.allclose(y, want, rtol=1e-4, atol=1e-5), np.abs(y - want).max()
print("all", len(x), "rows correct")
