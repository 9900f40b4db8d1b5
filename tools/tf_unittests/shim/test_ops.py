"""`tensorflow.python.framework.test_ops`: the fixture op types TF's framework tests build.

TF's tests register these signature-only op types (in its test_ops library) to exercise graph
construction; flowloom's registry gets the same signatures here, with unknown output shapes
and no kernels (running one fails as any kernel-less op does). `test_ops.float_output()` and
friends are their generated wrappers, as for `gen_*_ops`.
"""

import numpy as np

from flowloom.framework import dtypes, op_def
from flowloom.framework.tensor_shape import TensorShape, unknown_shape

from .importer import Missing, _op_wrapper, _snake_name

# op type -> (inputs, outputs, attrs, stateful), in flowloom's argument notation.
_SIGNATURES = {
    "KernelLabel": ([], ["result: string"], {}, False),
    "GraphDefVersion": ([], ["version: int32"], {}, True),
    "Old": ([], [], {}, False),
    "TestStringOutput": (["input: float32"], ["output1: float32", "output2: string"], {},
                         False),
    "A": ([], ["out: float32"], {}, False),
    "B": ([], ["out: float32"], {}, False),
    "Foo2": (["a: float32", "b: string", "c: string"], ["d: float32", "e: int32"], {}, False),
    "CopyOp": (["a: T"], ["b: T"], {}, False),
    "None": ([], [], {}, False),
    "IntOutput": ([], ["a: int32"], {}, False),
    "RefOutput": ([], ["a: Ref(int32)"], {}, False),
    "FloatOutput": ([], ["a: float32"], {}, False),
    "TwoFloatOutputs": ([], ["a: float32", "b: float32"], {}, False),
    "FiveFloatOutputs": ([], [f"{c}: float32" for c in "abcde"], {}, False),
    "RefOutputFloatOutput": ([], ["a: Ref(float32)", "b: float32"], {}, False),
    "RefInputFloatInput": (["a: Ref(float32)", "b: float32"], [], {}, False),
    "IntInput": (["a: int32"], [], {}, False),
    "IntInputIntOutput": (["a: int32"], ["b: int32"], {}, False),
    "FloatInput": (["a: float32"], [], {}, False),
    "TwoIntOutputs": ([], ["a: int32", "b: int32"], {}, False),
    "FloatOutputStringOutput": ([], ["a: float32", "b: string"], {}, False),
    "TwoIntInputs": (["a: int32", "b: int32"], [], {}, False),
    "TwoFloatInputs": (["a: float32", "b: float32"], [], {}, False),
    "IntInputFloatInput": (["a: int32", "b: float32"], [], {}, False),
    "OpWithDefaultAttr": ([], ["a: int32"], {"default_float": 123.0}, False),
    "OpWithFutureDefaultAttr": ([], [], {}, False),
    "IntAttr": ([], ["out: int64"], {"foo": 1}, False),
    "Simple": (["a: int32"], ["out: float32"], {}, False),
    "Foo1": (["a: float32", "b: int32", "c: int32"], ["d: float32", "e: int32"], {}, False),
    "Foo3": (["a: float32", "b: string", "c: float32"], ["d: float32", "e: int32"], {},
             False),
    "Int64Output": ([], ["out: int64"], {}, False),
    "IntOutputFloatOutput": ([], ["a: int32", "b: float32"], {}, False),
    "RefInputIntInput": (["a: Ref(int32)", "b: int32"], [], {}, False),
    "TwoFloatInputsFloatOutput": (["a: float32", "b: float32"], ["c: float32"], {}, False),
    "TwoFloatInputsIntOutput": (["a: float32", "b: float32"], ["c: int32"], {}, False),
    "RefInputFloatInputIntOutput": (["a: Ref(float32)", "b: float32"], ["c: int32"], {},
                                    False),
    "ListInput": (["a: N * T"], [], {"N": None, "T": None}, False),
    "ListOutput": ([], ["a: list(T)"], {"T": None}, False),
    "Unary": (["a: T"], ["b: T"], {}, False),
    "KernelLabelRequired": (["input: int32"], ["result: string"], {}, False),
    "RequiresOlderGraphVersion": ([], ["version: int32"], {}, True),
    "StringListAttr": ([], [], {"a": None, "b": None}, False),
    "FuncAttr": ([], [], {"f": None}, False),
    # Every attr kind with a default, as TF's test_ops.cc declares them.
    "DefaultAttrs": ([], [], {
        "string_val": "abc", "string_list_val": ["abc", ""], "int_val": 123,
        "int_list_val": [1, 2, 3], "float_val": 10.0, "float_list_val": [10.0],
        "bool_val": True, "bool_list_val": [True, False], "type_val": dtypes.int32,
        "type_list_val": [dtypes.int32, dtypes.float32], "shape_val": TensorShape([2, 1]),
        "shape_list_val": [TensorShape([]), TensorShape([1])],
        "tensor_val": np.array(1, np.int32), "tensor_list_val": [np.array(1, np.int32)]},
        False),
}


# op type -> (GraphDef version, explanation): the fixtures TF registers as `.Deprecated()`.
_DEPRECATED = {"Old": (8, "For reasons")}


def _register():
    for op_type, (inputs, outputs, attrs, stateful) in _SIGNATURES.items():
        if op_def.get(op_type) is not None:
            continue
        opdef = op_def.defop(op_type, inputs=inputs, outputs=outputs, attrs=attrs,
                             stateful=stateful)
        if op_type in _DEPRECATED:
            opdef.deprecated(*_DEPRECATED[op_type])
        n = len(outputs)
        opdef.shape(lambda op, n=n: [unknown_shape() for _ in range(n)])


_register()
_BY_NAME = {_snake_name(t): t for t in _SIGNATURES}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _BY_NAME:
        return _op_wrapper(_BY_NAME[name], name)
    return Missing(f"tensorflow.python.framework.test_ops.{name}")
