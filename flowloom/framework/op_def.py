"""The op registry: one `OpDef` per TensorFlow op type.

An op type is declared once, by its TF name, with its signature in TF's own notation::

    MatMul = defop("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
                   attrs={"transpose_a": False, "transpose_b": False})

    @MatMul.shape
    def _(op):                      # static shapes, from op.inputs and op.get_attr
        ...

    @MatMul.kernel
    def _(xp, a, b, *, transpose_a, transpose_b):   # arrays in, arrays out
        ...

    @MatMul.gradient
    def _(op, grad):                # builds graph ops; one gradient per input
        ...

Argument specs: ``"x: T"`` (type from attr T), ``"y: int32"`` (fixed type),
``"values: N * T"`` (a list; attr N counts it), ``"ref: Ref(T)"`` (a reference input),
``"output: out_type"``, ``"outputs: num * T"`` (a list output counted by attr num),
``"components: list(Tlist)"`` (a list of mixed types, attr Tlist holds them).

A kernel receives ``xp`` (the device's array module: numpy on CPU), the input arrays, and
as keyword arguments exactly the attrs its signature names. A kernel that declares a keyword
``ctx`` also receives the run context (resources such as variables, per-op state). A kernel
returns one array when the signature has exactly one output and it is not a list; otherwise it
returns the flat sequence of the output arrays, even when that holds a single array
(`Split` with num_split=1 returns `[part]`): one rule, applied by the executor.
"""

import inspect
import re

from flowloom.framework import dtypes
from flowloom.framework import lazy_registry

_REGISTRY = {}
# Op types whose registering modules (lazy_registry's index) are all imported.
_COMPLETE = {}
_ARG_RE = re.compile(r"^\s*(\w+)\s*:\s*(?:(\w+)\s*\*\s*)?(Ref\((\w+)\)|list\((\w+)\)|\w+)\s*$")


class ArgDef:
    """One input or output of an op type."""

    __slots__ = ("name", "type_attr", "fixed_dtype", "number_attr", "type_list_attr", "is_ref")

    def __init__(self, spec):
        m = _ARG_RE.match(spec)
        if not m:
            raise ValueError(f"Bad argument spec {spec!r}")
        self.name, self.number_attr, type_part, ref_inner, list_attr = m.groups()
        self.is_ref = ref_inner is not None
        self.type_attr = self.fixed_dtype = None
        self.type_list_attr = list_attr
        if list_attr is None:
            type_name = ref_inner or type_part
            try:
                self.fixed_dtype = dtypes.as_dtype(type_name)
            except TypeError:
                self.type_attr = type_name

    @property
    def is_list(self):
        return self.number_attr is not None or self.type_list_attr is not None


class OpDef:
    """Everything flowloom knows about one op type, in one place."""

    def __init__(self, type_name, inputs, outputs, attrs, stateful, forwards_ref,
                 allowed_types):
        self.type = type_name
        self.input_args = [ArgDef(s) for s in inputs]
        self.output_args = [ArgDef(s) for s in outputs]
        self.attr_defaults = dict(attrs or {})
        self.allowed_types = dict(allowed_types or {})
        self.stateful = stateful
        # An op that forwards a reference (Identity) passes a variable's live buffer through,
        # as TF does: the value is read when a consumer uses it.
        self.forwards_ref = forwards_ref
        self.ref_input_indices = tuple(i for i, a in enumerate(self.input_args) if a.is_ref)
        # The kernel returns a sequence of arrays (see the module docstring).
        self.returns_sequence = len(self.output_args) != 1 or self.output_args[0].is_list
        self.shape_fn = None
        self.kernel_fn = None
        self.kernel_attrs = ()
        self.kernel_wants_ctx = False
        self.grad_fn = None
        self.grad_none = False
        self._fast = None  # apply_op's per-type fast-path spec, worked out on first use
        self.attr_hook = None  # attrs -> None: converts attr values (func attrs) at build time
        self.deprecation = None  # (GraphDef version, explanation): see `deprecated`

    def shape(self, fn):
        lazy_registry.note("op", self.type)
        self.shape_fn = fn
        return fn

    def kernel(self, fn):
        lazy_registry.note("op", self.type)
        params = inspect.signature(fn).parameters
        self.kernel_fn = fn
        self.kernel_attrs = tuple(
            n for n, p in params.items() if p.kind == p.KEYWORD_ONLY and n != "ctx")
        self.kernel_wants_ctx = "ctx" in params
        return fn

    def gradient(self, fn):
        lazy_registry.note("op", self.type)
        self.grad_fn = fn
        return fn

    def no_gradient(self):
        lazy_registry.note("op", self.type)
        self.grad_none = True
        return self

    def deprecated(self, version, explanation):
        """Marks the type as removed from GraphDef `version` on (TF's `.Deprecated()`): a
        graph whose producer version is at least `version` cannot build it."""
        self.deprecation = (version, explanation)
        return self

    def __repr__(self):
        return f"<OpDef {self.type}>"


def defop(type_name, inputs=(), outputs=(), attrs=None, stateful=False, forwards_ref=False,
          allowed_types=None):
    """Registers an op type under its TF name and returns its `OpDef`."""
    if type_name in _REGISTRY:
        raise KeyError(f"Op type {type_name!r} is already registered")
    lazy_registry.note("op", type_name)
    opdef = OpDef(type_name, inputs, outputs, attrs, stateful, forwards_ref, allowed_types)
    _REGISTRY[type_name] = opdef
    return opdef


def get(type_name, load_all=True):
    """Returns the OpDef of `type_name`, or None.

    The modules that register the type (its family, its gradient, its kernels) are imported
    first, from lazy_registry's index; a type the index does not know makes everything load
    once (`load_all=False`: not for names that are not op types, such as gradient names).
    """
    opdef = _COMPLETE.get(type_name)
    if opdef is None:
        lazy_registry.load("op", type_name)
        opdef = _REGISTRY.get(type_name)
        if opdef is None and load_all:
            lazy_registry.load_all()
            opdef = _REGISTRY.get(type_name)
        if opdef is not None:
            _COMPLETE[type_name] = opdef
    return opdef


def registered_types():
    lazy_registry.load_all()
    return sorted(_REGISTRY)


class NotDifferentiable:
    """Marks op types as having no gradient (`tf.NotDifferentiable`)."""

    def __init__(self, *type_names):
        for t in type_names:
            get(t).no_gradient()


