"""Every registered gradient, checked against central finite differences.

The input builders are in tests/gradient_cases/ (one module per op family; see its
__init__ for the format). An op type with a gradient but no builder fails here.
"""

import importlib
import pkgutil
import zlib

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import gradients_impl, op_def
from tests import gradient_cases


def _all_cases():
    cases = {}
    for info in pkgutil.iter_modules(gradient_cases.__path__):
        module = importlib.import_module(f"{gradient_cases.__name__}.{info.name}")
        for op_type, builders in getattr(module, "CASES", {}).items():
            if not isinstance(builders, (list, tuple)):
                builders = [builders]
            cases.setdefault(op_type, []).extend(builders)
    return cases


CASES = _all_cases()


def _registered_gradients():
    types = {t for t, od in op_def._REGISTRY.items() if od.grad_fn is not None}
    # tf.custom_gradient registers one "CustomGradient-<uid>" override of IdentityN per use
    # (while tests run): IdentityN's own case covers the op.
    types |= {t for t, fn in gradients_impl._NAMED_GRADIENTS.items()
              if fn is not None and not t.startswith("CustomGradient-")}
    return sorted(types)


def _shares_checked_gradient(op_type):
    """A Ref variant whose gradient is the very function of a checked op type (RefSwitch → Switch)."""
    if not op_type.startswith("Ref") or op_type[3:] not in CASES:
        return False
    ref, plain = op_def.get(op_type), op_def.get(op_type[3:])
    return ref is not None and plain is not None and ref.grad_fn is plain.grad_fn


# Gradients that flow to a `resource` handle (no float tensor to perturb here): checked
# against central differences through the variable in the named test.
_CHECKED_ELSEWHERE = {
    "ReadVariableOp": "tests/train/test_resource_variables.py",
    "ResourceGather": "tests/train/test_resource_variables.py",
    "ResourceGatherNd": "tests/ops/test_gather_scatter_nd_checks.py",
    # Its gradient is an error (LookupError), by design.
    "PreventGradient": "tests/framework/test_gradient_helpers.py",
}


def test_every_registered_gradient_has_a_case():
    missing = [t for t in _registered_gradients()
               if t not in CASES and not _shares_checked_gradient(t)
               and t not in _CHECKED_ELSEWHERE]
    assert not missing, (f"op types with a gradient but no builder in tests/gradient_cases/: "
                         f"{missing}")


_PARAMS = [(t, i) for t in _registered_gradients() for i in range(len(CASES.get(t, ())))]


def _ops_between(xs, y):
    seen, stack = set(), [y.op]
    while stack:
        op = stack.pop()
        if op in seen or any(op is x.op for x in xs):
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
    return seen


@pytest.mark.parametrize("op_type,index", _PARAMS, ids=[f"{t}-{i}" for t, i in _PARAMS])
def test_gradient_matches_finite_differences(op_type, index):
    rng = np.random.default_rng(zlib.crc32(f"{op_type}/{index}".encode()))
    built = CASES[op_type][index](rng)
    pairs, y = built[0], built[1]
    tol = built[2] if len(built) > 2 and built[2] is not None else 1e-4
    extra = built[3] if len(built) > 3 else {}
    xs = [p[0] for p in pairs]
    values = [np.asarray(p[1], dtype=np.float64) for p in pairs]
    assert op_type in {op.type for op in _ops_between(xs, y)}, \
        f"the builder for {op_type} does not put a {op_type} op between xs and y"
    with tf.Session() as sess:
        feeds = dict(zip(xs, values))
        feeds.update(extra)
        y_shape = np.shape(sess.run(y, feeds))
        error = tf.test.compute_gradient_error(
            xs, [v.shape for v in values], y, y_shape, x_init_value=values,
            extra_feed_dict=extra)
    assert error < tol, f"{op_type}: max |theoretical - numerical| = {error}"
