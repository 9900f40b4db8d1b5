"""The `tensorflow` import mapping: a meta-path finder that serves flowloom under TF's names.

`install_as_tensorflow()` puts the finder first on `sys.meta_path`; from then on
`import tensorflow as tf`, `import tensorflow.compat.v1 as tf`, `from tensorflow.contrib import
rnn`, `from tensorflow.python.ops import array_ops`, ... give flowloom's modules (the same
objects: `tensorflow.nn is flowloom.nn`). How a TF module name is resolved is in
module_map.py; a TF module with no counterpart fails with `NoCounterpartError` (a
ModuleNotFoundError) naming it.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from flowloom.compat import module_map


class NoCounterpartError(ModuleNotFoundError, NotImplementedError):
    """A TensorFlow module flowloom has no counterpart for (an ImportError, as TF's would be)."""


class ModuleView(types.ModuleType):
    """A TF module assembled from flowloom modules: each name is looked up in `sources` in order.

    TF's internal modules (`tensorflow.python.ops.array_ops`, ...) hold names that flowloom
    keeps in its public namespaces and in its own op modules; the view finds them there.
    """

    def __init__(self, name, sources, renames=None):
        super().__init__(name)
        self.__dict__["_view_sources"] = tuple(sources)
        self.__dict__["_view_renames"] = dict(renames or {})
        self.__dict__["_view_resolved"] = None

    def _sources(self):
        resolved = self.__dict__["_view_resolved"]
        if resolved is None:
            resolved = [m for m in (module_map.resolve_source(s)
                                    for s in self.__dict__["_view_sources"]) if m is not None]
            self.__dict__["_view_resolved"] = resolved
        return resolved

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        renamed = self.__dict__["_view_renames"].get(attr)
        if renamed is not None:
            value = module_map.resolve_attribute(renamed)
            setattr(self, attr, value)
            return value
        for source in self._sources():
            if attr in getattr(source, "__dict__", {}) or hasattr(source, attr):
                value = getattr(source, attr)
                setattr(self, attr, value)
                return value
        raise AttributeError(f"module '{self.__name__}' has no attribute '{attr}' "
                             "(flowloom has no counterpart of it)")

    def __dir__(self):
        names = set(self.__dict__) | set(self.__dict__["_view_renames"])
        for source in self._sources():
            names.update(n for n in dir(source) if not n.startswith("_"))
        return sorted(n for n in names if not n.startswith("_view_"))


def _container(name):
    """An empty package standing for a TF package that only holds other modules."""
    module = types.ModuleType(name, f"TensorFlow's {name} package, mapped onto flowloom.")
    module.__path__ = []
    return module


def resolve(fullname):
    """The module object that serves TF module `fullname`, or raises NoCounterpartError."""
    kind, target = module_map.lookup(fullname)
    if kind == "module":
        return importlib.import_module(target) if isinstance(target, str) else target
    if kind == "view":
        sources, renames = target
        view = ModuleView(fullname, sources, renames)
        if module_map.is_package(fullname):
            view.__path__ = []  # TF's module is also a package (tensorflow.python.ops.losses)
        return view
    if kind == "container":
        return _container(fullname)
    raise NoCounterpartError(f"No module named '{fullname}': {target}", name=fullname)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # The import system stamped the TF spec on the module; a flowloom module keeps its own.
        if module.__name__ != module.__spec__.name:
            module.__spec__ = self._spec


class TensorFlowFinder(importlib.abc.MetaPathFinder):
    """Finds `tensorflow` and `tensorflow.*` as flowloom modules (see module_map.py)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow" and not fullname.startswith("tensorflow."):
            return None
        module = resolve(fullname)
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                              is_package=is_package)


_finder = TensorFlowFinder()


def install_as_tensorflow():
    """Makes `import tensorflow` (and its TF1 submodules) import flowloom in this process.

    For notebooks and programs that cannot be started with `flowloom run`: call it before the
    first `import tensorflow`. `import tensorflow as tf` then gives the `flowloom` module,
    `tensorflow.compat.v1` too, `tensorflow.contrib.*` gives `flowloom.contrib.*` and the
    common `tensorflow.python.*` paths give their flowloom counterparts.

    From then on `flowloom.__version__` (which is `tensorflow.__version__`) reads "1.15.5",
    the TF release whose API flowloom follows, as TF1 scripts compare it; `uninstall()`
    restores flowloom's own version.

    Raises:
      RuntimeError: if the real TensorFlow is already imported in this process.
    """
    existing = sys.modules.get("tensorflow")
    if existing is not None and existing is not sys.modules["flowloom"]:
        raise RuntimeError("tensorflow is already imported in this process: call "
                           "flowloom.install_as_tensorflow() before the first "
                           "`import tensorflow`")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    # TF1 scripts branch on tensorflow.__version__, which is flowloom's here (version.py)
    flowloom = sys.modules["flowloom"]
    flowloom.__version__ = flowloom.version.VERSION


def uninstall():
    """Undoes `install_as_tensorflow()`: removes the finder and the `tensorflow` modules it
    served from `sys.modules`."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    flowloom = sys.modules.get("flowloom")
    if flowloom is not None:
        flowloom.__version__ = flowloom.version.FLOWLOOM_VERSION
    for name in [n for n in sys.modules if n == "tensorflow" or n.startswith("tensorflow.")]:
        del sys.modules[name]
