"""Names of a namespace module that are imported when first used (PEP 562).

A table maps each public name to where it lives::

    TABLE = lazy_names.parse({
        "flowloom.ops.array.array_ops": "concat constant range=range_",   # name or name=attr
    })
    __getattr__, __dir__, load_everything = lazy_names.attach(__name__, TABLE, factories,
                                                               submodules)

`tf.concat` then imports flowloom.ops.array.array_ops on first use and keeps the value in the
module, so later uses cost a plain attribute read. `dir()` lists every name before any is
loaded; `from flowloom import *` (through `__all__`) and `load_everything()` load them all.
"""

import importlib
import sys
import types


def parse(blocks):
    """{module: "name name=attr ..."} -> {name: (module, attr)}; a key may carry a `#tag`
    (`"flowloom.ops.math.math_ops#aliases"`) to list a module twice."""
    table = {}
    for key, text in blocks.items():
        module = key.partition("#")[0]
        for item in text.split():
            name, _, attr = item.partition("=")
            if name in table:
                raise ValueError(f"{name!r} is listed twice ({table[name][0]} and {module})")
            table[name] = (module, attr or name)
    return table


def _import_attr(module, attr):
    mod = importlib.import_module(module)
    try:
        return getattr(mod, attr)
    except AttributeError:
        # `from package import submodule` semantics
        return importlib.import_module(f"{module}.{attr}")


class LazyModule(types.ModuleType):
    """A namespace module whose listed names win over its submodules of the same name.

    Importing a submodule sets it as an attribute of its package (`import
    flowloom.variable_scope` sets `flowloom.variable_scope`); where the table gives that name
    to something else (the function `tf.variable_scope`), the table's value is kept, as an
    eager `from flowloom.variable_scope import variable_scope` after the import would.
    """

    def __setattr__(self, name, value):
        table = self.__dict__.get("_lazy_table")
        if (table is not None and name in table and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            value = _import_attr(*table[name])
        super().__setattr__(name, value)


def attach(module_name, table, factories=None, submodules=()):
    """Returns (`__getattr__`, `__dir__`, `load_everything`) for the module `module_name`.

    `factories` maps names to functions of the module that build the value (namespaces made
    of other names); `submodules` are names of the module's own subpackages.
    """
    factories = dict(factories or {})
    submodules = frozenset(submodules)
    names = frozenset(table) | frozenset(factories) | submodules
    module = sys.modules[module_name]
    module._lazy_table = table
    module.__class__ = LazyModule

    def __getattr__(name):
        module = sys.modules[module_name]
        if name in table:
            value = _import_attr(*table[name])
        elif name in factories:
            value = factories[name](module)
        elif name in submodules:
            value = importlib.import_module(f"{module_name}.{name}")
        elif name == "__all__":
            return sorted(n for n in __dir__() if not n.startswith("_"))
        else:
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        setattr(module, name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[module_name])) | names)

    def load_everything():
        """Resolves every name, and those of the lazy namespaces among them."""
        module = sys.modules[module_name]
        if module.__dict__.get("_lazy_loaded_everything"):
            return
        module._lazy_loaded_everything = True
        for name in sorted(names):
            value = getattr(module, name)
            inner = getattr(value, "__dict__", {}).get("_load_everything")
            if isinstance(value, types.ModuleType) and callable(inner):
                inner()

    return __getattr__, __dir__, load_everything
