"""Which module registers what: the index that lets flowloom load op families when first used.

`import flowloom` loads no op family. Whatever looks a registration up by name (an op type in
a GraphDef, a gradient, a collection's proto functions in a MetaGraphDef, a `grpc://` session
target, a fetched composite type, a Tensor operator) asks this module to import the modules
that register it, from `registry_index.py`: a generated table, module -> the keys it
registers, per category. Lower layers find higher ones only through this data.

The index is made, and checked, by importing every flowloom module with recording on::

    python -m flowloom.framework.lazy_registry --write   # rewrites registry_index.py

(tests/framework/test_lazy_import.py fails, naming this command, when the committed index
differs from what the modules register.) A registration made while a module body runs is
attributed to that module (the innermost `<module>` frame on the stack).

Categories: `op` (op types and named gradients: defop, shape/kernel/gradient, no_gradient,
RegisterGradient), `proto_function` (collection keys), `session_target` (target prefixes),
`fetch_type` and `tensor_conversion` (qualified class names), `tensor_operator` (Tensor
operator names).
"""

import importlib
import os
import sys

# Set by the index generator (FLOWLOOM_RECORD_REGISTRY=1): category -> key -> {module}.
RECORDING = os.environ.get("FLOWLOOM_RECORD_REGISTRY", "") not in ("", "0")
_recorded = {}
_by_key = None  # category -> key -> (modules...), inverted from registry_index.INDEX
_everything_loaded = [False]


def note(category, key):
    """Records that the module being imported registers `key` of `category` (a no-op unless
    the index is being made)."""
    if not RECORDING:
        return
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    if module.startswith("flowloom.") or module == "flowloom":
        _recorded.setdefault(category, {}).setdefault(key, set()).add(module)


def _index():
    global _by_key
    if _by_key is None:
        from flowloom.framework.registry_index import INDEX

        by_key = {}
        for category, modules in INDEX.items():
            table = by_key.setdefault(category, {})
            for module, keys in modules.items():
                for key in keys.split():
                    table[key] = table.get(key, ()) + (module,)
        _by_key = by_key
    return _by_key


def keys(category):
    """The keys of `category` that the index knows."""
    return list(_index().get(category, {}))


def modules_for(category, key):
    return _index().get(category, {}).get(key, ())


def load(category, key):
    """Imports the modules that register `key` of `category`; True if it imported any."""
    imported = False
    for module in modules_for(category, key):
        if module not in sys.modules:
            importlib.import_module(module)
            imported = True
    return imported


def load_type(category, cls):
    """`load` for the qualified names of `cls` and its bases; True if it imported any."""
    imported = False
    for klass in getattr(cls, "__mro__", (cls,)):
        imported = load(category, f"{klass.__module__}.{klass.__qualname__}") or imported
    return imported


def note_types(category, types):
    """`note` for a class or a tuple of classes (recorded by qualified name)."""
    if RECORDING:
        for cls in types if isinstance(types, tuple) else (types,):
            note(category, f"{cls.__module__}.{cls.__qualname__}")


def install_operator_stubs(cls):
    """Gives `cls` (Tensor) the indexed Python operators it lacks: the first use imports the
    module that defines the operator (which replaces the stub) and applies it."""
    for name in keys("tensor_operator"):
        if name not in vars(cls):
            setattr(cls, name, _operator_stub(cls, name))


def _operator_stub(cls, name):
    def stub(self, *args):
        load("tensor_operator", name)
        if vars(cls).get(name) is stub:
            return NotImplemented
        return getattr(self, name)(*args)
    stub.__name__ = name
    return stub


def load_all():
    """Imports every indexed module and resolves flowloom's public namespace: what
    `import flowloom` did before namespaces were loaded lazily (done once per process)."""
    if _everything_loaded[0]:
        return
    _everything_loaded[0] = True
    for modules in _index().values():
        for module_list in modules.values():
            for module in module_list:
                if module not in sys.modules:
                    try:
                        importlib.import_module(module)
                    except ImportError:  # an optional dependency (ray, cupy) is absent
                        pass
    import flowloom

    flowloom._load_everything()


# -- making the index ------------------------------------------------------------------------

_SKIP = ("flowloom.__main__", "flowloom.cli.__main__")


def all_module_names():
    """Every module of the flowloom package (but its `__main__`s)."""
    import pkgutil

    import flowloom

    names = ["flowloom"]
    for info in pkgutil.walk_packages(flowloom.__path__, "flowloom."):
        if not info.name.endswith("__main__") and info.name not in _SKIP:
            names.append(info.name)
    return sorted(names)


def record_everything():
    """Imports every flowloom module with recording on (call it in a process started with
    FLOWLOOM_RECORD_REGISTRY=1) and returns (index, modules that failed to import)."""
    if not RECORDING:
        raise RuntimeError("start the process with FLOWLOOM_RECORD_REGISTRY=1")
    failed = {}
    for name in all_module_names():
        try:
            importlib.import_module(name)
        except Exception as e:  # optional dependencies; reported, not indexed
            failed[name] = f"{type(e).__name__}: {e}"
    index = {}
    for category, table in sorted(_recorded.items()):
        per_module = {}
        for key, modules in table.items():
            for module in modules:
                per_module.setdefault(module, []).append(key)
        index[category] = {m: " ".join(sorted(ks)) for m, ks in sorted(per_module.items())}
    return index, failed


def render(index):
    lines = ['"""Generated by `python -m flowloom.framework.lazy_registry --write`: do not edit.',
             "", "category -> module -> the keys it registers (flowloom/framework/"
             "lazy_registry.py).", '"""', "", "INDEX = {"]
    for category, modules in index.items():
        lines.append(f"    {category!r}: {{")
        for module, keys_text in modules.items():
            lines.append(f"        {module!r}:")
            words, line = keys_text.split(), ""
            chunks = []
            for w in words:
                if len(line) + len(w) + 1 > 80:
                    chunks.append(line)
                    line = ""
                line = f"{line} {w}" if line else w
            chunks.append(line)
            for i, chunk in enumerate(chunks):
                sep = " " if i < len(chunks) - 1 else ""
                lines.append(f"            {chunk + sep!r}" + ("," if i == len(chunks) - 1
                                                              else ""))
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv):
    index, failed = record_everything()
    for name, why in sorted(failed.items()):
        print(f"not indexed (import failed): {name}: {why}", file=sys.stderr)
    text = render(index)
    if "--write" in argv:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "registry_index.py")
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    if not RECORDING:
        import subprocess

        env = dict(os.environ, FLOWLOOM_RECORD_REGISTRY="1")
        sys.exit(subprocess.call([sys.executable, "-m", "flowloom.framework.lazy_registry"]
                                 + sys.argv[1:], env=env))
    # The imported module (not this __main__ copy) is the one the registrations report to.
    from flowloom.framework import lazy_registry

    sys.exit(lazy_registry.main(sys.argv[1:]))
