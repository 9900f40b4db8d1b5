"""Records flowloom's public namespace tree (tests/data/public_names.json).

Run with the flowloom whose surface is the reference (the eager import this file was first
recorded from): `python tests/data/record_public_names.py > tests/data/public_names.json`.
tests/framework/test_lazy_import.py checks that the lazily loaded namespaces still offer every
recorded name, with the same kind of object.
"""

import json
import sys
import types


def kind(obj):
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        return "callable"
    return "value"


def names(module):
    return {n: kind(getattr(module, n)) for n in dir(module)
            if not n.startswith("_") and hasattr(module, n)}


def main():
    import flowloom

    top = names(flowloom)
    tree = {"": top}
    for name, k in sorted(top.items()):
        if k == "module" and name not in ("compat",):
            tree[name] = names(getattr(flowloom, name))
    for name, k in sorted(tree.get("contrib", {}).items()):
        if k == "module":
            tree["contrib." + name] = names(getattr(flowloom.contrib, name))
    json.dump(tree, sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
