"""An import hook that answers `import tensorflow...` with flowloom's modules.

Each `tensorflow.*` path becomes a `MappedModule` whose names come from the flowloom modules
that `modules.sources_for` lists. `gen_*_ops` modules are the op registry under TF's
generated-wrapper names (`gen_array_ops.ref_identity` builds a `RefIdentity` op). A name
that flowloom lacks is a `Missing` placeholder: importing it works, using it raises
NotImplementedError naming it, so only the tests that need it fail.
"""

import collections
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

from . import modules as _modules

UNCLAIMED_MARK = "[tf-shim unclaimed:"

# Paths answered by the shim's own modules (the test harness, not TF behaviour).
_OWN = {
    "tensorflow.python.framework.test_util": "tools.tf_unittests.shim.test_util",
    "tensorflow.python.platform.test": "tools.tf_unittests.shim.platform_test",
    "tensorflow.python.platform.googletest": "tools.tf_unittests.shim.platform_test",
    "tensorflow.python.framework.test_ops": "tools.tf_unittests.shim.test_ops",
}

# TF packages: their attributes are their submodules.
_PACKAGES = {
    "tensorflow.python", "tensorflow.python.ops", "tensorflow.python.framework",
    "tensorflow.python.platform", "tensorflow.python.client", "tensorflow.python.training",
    "tensorflow.python.summary", "tensorflow.python.summary.writer", "tensorflow.python.layers",
    "tensorflow.python.util", "tensorflow.python.eager", "tensorflow.python.lib",
    "tensorflow.python.lib.io", "tensorflow.core", "tensorflow.core.framework",
    "tensorflow.core.protobuf", "tensorflow.core.lib", "tensorflow.core.lib.core",
    "tensorflow.core.util", "tensorflow.python.keras", "tensorflow.python.ops.losses",
    "tensorflow.python.kernel_tests", "tensorflow.python.training.tracking",
    "tensorflow.python.data", "tensorflow.python.data.ops", "tensorflow.python.ops.ragged",
    "tensorflow.python.distribute", "tensorflow.python.keras.engine",
    "tensorflow.python.keras.layers", "tensorflow.python.grappler", "tensorflow.compat",
    "tensorflow.python.compat", "tensorflow.python.training.saving",
    "tensorflow.python.training.experimental", "tensorflow.python.ops.parallel_for",
    "tensorflow.python.ops.linalg", "tensorflow.python.ops.signal",
}


# True while pytest imports the test file: a missing name used at import time (a decorator
# argument, a class attribute) yields another placeholder instead of failing the whole file;
# the tests that use it fail when they run.
COLLECTING = [False]


class Missing:
    """A name flowloom does not have; any use raises NotImplementedError naming it."""

    def __init__(self, qualname, reason=None):
        object.__setattr__(self, "_qualname", qualname)
        object.__setattr__(self, "_reason", reason if reason is not None
                           else _modules.unclaimed_reason(qualname))

    def _raise(self, *args, **kwargs):
        mark = f" {UNCLAIMED_MARK} {self._reason}]" if self._reason else ""
        raise NotImplementedError(f"flowloom has no {self._qualname}{mark}")

    def __call__(self, *args, **kwargs):
        if COLLECTING[0]:
            return Missing(self._qualname + "()", self._reason)
        self._raise()

    def __iter__(self):
        if COLLECTING[0]:
            # A test-parameter list holding a missing object is iterated at import time
            # (absl's parameterized formats it): the test is still made, and fails (or is
            # excluded as unclaimed) when it runs.
            return iter((self,))
        self._raise()

    __enter__ = _raise

    def __mro_entries__(self, bases):
        # A test file may subclass a missing class at import time; the subclass is created
        # and only its instantiation fails, so only the tests that use it fail.
        missing = self

        class MissingBase:
            def __init__(self, *args, **kwargs):
                missing._raise()

        MissingBase.__name__ = self._qualname.rsplit(".", 1)[-1]
        return (MissingBase,)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if COLLECTING[0]:
            return Missing(f"{self._qualname}.{name}", self._reason)
        self._raise()

    def __repr__(self):
        return f"<missing {self._qualname}>"


class MappedModule(types.ModuleType):
    """A TF module path whose names resolve in flowloom's modules."""

    def __init__(self, path):
        super().__init__(path)
        self.__path__ = []
        self._tf_path = path
        self._sources = None
        self._renames = None

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_tf_path", "_sources", "_renames"):
            raise AttributeError(name)
        path = self._tf_path
        if f"{path}.{name}" in _modules.PLUMBING:
            return _modules.PLUMBING[f"{path}.{name}"]
        if f"{path}.{name}" in support_files() or f"{path}.{name}" in _modules.EXPLICIT:
            return importlib.import_module(f"{path}.{name}")
        if path.startswith("tensorflow.core") and not path.endswith("_pb2"):
            return importlib.import_module(f"{path}.{name}")
        package = path in _PACKAGES or _modules.is_compat_package(path)
        self._resolve_sources()
        if name in self._renames:
            return self._renames[name]
        for source in self._sources:
            if hasattr(source, name):
                return getattr(source, name)
        if package or (path == "tensorflow" and name.islower()):
            return importlib.import_module(f"{path}.{name}")
        return Missing(f"{path}.{name}")

    def _resolve_sources(self):
        if self._sources is None:
            package = self._tf_path in _PACKAGES or _modules.is_compat_package(self._tf_path)
            self._sources, self._renames = _modules.sources_for(self._tf_path, package)

    def __setattr__(self, name, value):
        # Patching a name of a mapped module (`mock.patch.object(random_ops, ...)`) patches
        # it where flowloom looks it up: in every source module holding that same object.
        if name.startswith("_") or isinstance(value, types.ModuleType):
            return super().__setattr__(name, value)
        self._resolve_sources()
        current = next((m.__dict__[name] for m in self._sources if name in m.__dict__), None)
        holders = [m for m in self._sources
                   if current is not None and m.__dict__.get(name) is current]
        if not holders:
            return super().__setattr__(name, value)
        originals = self.__dict__.setdefault("_patched", {})
        for m in holders:
            originals.setdefault((m.__name__, name), (m, m.__dict__[name]))
            setattr(m, name, value)

    def __delattr__(self, name):
        originals = self.__dict__.get("_patched", {})
        restored = [key for key in originals if key[1] == name]
        if not restored:
            return super().__delattr__(name)
        for key in restored:
            module, value = originals.pop(key)
            setattr(module, name, value)

    def __call__(self, *args, **kwargs):
        Missing(self._tf_path, _modules.unclaimed_reason(self._tf_path))()


def _snake_name(op_type):
    """TF's generated-wrapper name of an op type (`MatMul` -> `mat_mul`, `Conv2D` -> `conv2d`)."""
    out = []
    last = len(op_type) - 1
    for i, c in enumerate(op_type):
        if c.isupper() and i > 0 and (op_type[i - 1].islower()
                                       or (i < last and op_type[i + 1].islower())):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


class GenOpsModule(types.ModuleType):
    """`gen_*_ops`: one wrapper per registered op type, under TF's generated names."""

    def __init__(self, path):
        super().__init__(path)
        self._tf_path = path

    def __getattr__(self, name):
        if name.startswith("__") or name == "_tf_path":
            raise AttributeError(name)
        from flowloom.framework import op_def

        by_name = {_snake_name(t): t for t in op_def.registered_types()}
        op_type = by_name.get(name.lstrip("_"))
        if op_type is None:
            return Missing(f"{self._tf_path}.{name}")
        return _op_wrapper(op_type, name)


def _op_wrapper(op_type, func_name):
    from flowloom.framework import op_def
    from flowloom.framework.apply_op import apply_op

    opdef = op_def.get(op_type)
    input_names = [a.name for a in opdef.input_args]
    output_names = [a.name for a in opdef.output_args]
    # TF's generated wrappers take, after the inputs, the attrs not inferred from them: the
    # required ones first (an output's type attr among them), then those with defaults, each
    # group in OpDef order (flowloom's registry keeps the attrs in definition order).
    inferred = {n for a in opdef.input_args
                for n in (a.type_attr, a.number_attr, a.type_list_attr) if n}
    declared = [n for n in opdef.attr_defaults if n not in inferred]
    output_types = [n for a in opdef.output_args for n in (a.type_attr, a.type_list_attr)
                    if n and n not in inferred and n not in opdef.attr_defaults]
    required = [n for n in declared if opdef.attr_defaults[n] is None]
    positional_attrs = list(dict.fromkeys(
        required + output_types + [n for n in declared if n not in required]))
    result_type = collections.namedtuple(op_type, output_names) if len(output_names) > 1 \
        else None

    def wrapper(*args, **kwargs):
        name = kwargs.pop("name", None)
        if len(args) > len(input_names) + len(positional_attrs):
            raise TypeError(f"{func_name}() takes {len(input_names)} inputs and "
                            f"{len(positional_attrs)} attrs, got {len(args)} arguments")
        for attr_name, value in zip(positional_attrs, args[len(input_names):]):
            if attr_name in kwargs:
                raise TypeError(f"{func_name}() got multiple values for '{attr_name}'")
            kwargs[attr_name] = value
        args = args[:len(input_names)]
        inputs = list(args)
        for arg_name in input_names[len(args):]:
            if arg_name not in kwargs:
                raise TypeError(f"{func_name}() missing input '{arg_name}'")
            inputs.append(kwargs.pop(arg_name))
        op = apply_op(op_type, inputs, name=name, **kwargs)
        if not output_names:
            return op
        groups = _group_outputs(opdef, op)
        if result_type is None:
            return groups[0]
        return result_type(*groups)

    wrapper.__name__ = func_name
    return wrapper


def _group_outputs(opdef, op):
    outputs = list(op.outputs)
    groups = []
    fixed = sum(1 for a in opdef.output_args if not a.is_list)
    for arg in opdef.output_args:
        if not arg.is_list:
            groups.append(outputs.pop(0))
            continue
        if arg.number_attr:
            count = op.get_attr(arg.number_attr)
        elif arg.type_list_attr:
            count = len(op.get_attr(arg.type_list_attr))
        else:
            count = len(outputs) - (fixed - len(groups))
        groups.append(outputs[:count])
        del outputs[:count]
    return groups


def support_files():
    """{TF module path: file}: TF's own test-support modules, fetched with the tests
    (manifest.json `support`; run.py passes them in $FLOWLOOM_TF_SUPPORT). They are loaded
    as TF wrote them, over the mapped modules, as the test files are."""
    return json.loads(os.environ.get("FLOWLOOM_TF_SUPPORT") or "{}")


class TensorflowFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds every `tensorflow` / `tensorflow.*` module (installed first on sys.meta_path)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow" and not fullname.startswith("tensorflow."):
            return None
        source = support_files().get(fullname)
        if source:
            return importlib.util.spec_from_file_location(fullname, source)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        name = spec.name
        if name in _OWN:
            return importlib.import_module(_OWN[name])
        leaf = name.rsplit(".", 1)[-1]
        if name.startswith("tensorflow.python.ops.gen_"):
            return GenOpsModule(name)
        module = MappedModule(name)
        if leaf == "tensorflow":
            module.__path__ = []
        return module

    def exec_module(self, module):
        pass


_FINDER = TensorflowFinder()


def install():
    """Puts the finder first on sys.meta_path (idempotent); returns it."""
    if _FINDER not in sys.meta_path:
        for name in [m for m in sys.modules if m == "tensorflow" or m.startswith("tensorflow.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, _FINDER)
    return _FINDER
