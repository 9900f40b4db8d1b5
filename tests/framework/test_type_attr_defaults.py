"""Type attrs with a default in TF have the same default in flowloom.

GraphDefs written with strip_default_attrs (SavedModels often are) leave them out, so an op
that lacks TF's default cannot be imported. tests/data/tf_type_attr_defaults.json lists, for
every TF 1.15 op with such a default on an input or output type attr, the default (recorded
with TF's op registry: op_def_registry.get_registered_ops()).
"""

import json
import os

import flowloom  # noqa: F401 - registers the op library
from flowloom.framework import op_def

PATH = os.path.join(os.path.dirname(__file__), "..", "data", "tf_type_attr_defaults.json")


def test_registered_ops_have_tfs_type_attr_defaults():
    with open(PATH) as f:
        table = json.load(f)
    wrong = {}
    for op_type, defaults in table.items():
        opdef = op_def.get(op_type)
        if opdef is None:
            continue
        for attr, tf_name in defaults.items():
            have = opdef.attr_defaults.get(attr)
            want = tf_name[3:].lower()  # DT_FLOAT -> float
            have_name = None if have is None else {"float32": "float", "float64": "double"}.get(
                have.name, have.name)
            if have_name != want:
                wrong[f"{op_type}.{attr}"] = (have_name, want)
    assert not wrong, wrong
