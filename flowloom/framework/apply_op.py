"""Building one op from Python values: convert inputs, infer type attrs, name it, add it."""

from flowloom.framework import dtypes
from flowloom.framework import op_def as op_registry
from flowloom.framework.func_attr import as_func_attr
from flowloom.framework.graph import (_colocation_root, _default_graph_stack, _graph_of,
                                      get_default_graph)
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape


def apply_op(op_type, inputs=(), name=None, **attrs):
    """Adds an op of type `op_type` to the graph of its inputs and returns the Operation.

    `inputs` follows the op's signature: one value per input argument, a list for list
    arguments. Type attrs (`T`, `N`, ...) are inferred from the inputs, as TF's op
    library does; other attrs are taken from `attrs` or the op's defaults.
    """
    opdef = op_registry._COMPLETE.get(op_type) or op_registry.get(op_type)
    if opdef is None:
        raise ValueError(f"Op type not registered '{op_type}'")
    for k, v in attrs.items():  # TF takes bytes for string attrs (get_attr returns them)
        cls = v.__class__
        if cls in _PLAIN_ATTR_CLASSES:
            continue
        if cls is bytes and isinstance(opdef.attr_defaults.get(k), str):
            attrs[k] = v.decode("utf-8", "surrogateescape")
        elif hasattr(v, "add_to_graph"):  # a function attr (framework/func_attr.py)
            attrs[k] = as_func_attr(v, get_default_graph())
    fast = opdef._fast
    if fast is None:
        fast = opdef._fast = _fast_spec(opdef)
    if fast:  # (False for deprecated types: the general path checks the version)
        op = _apply_fast(opdef, fast, inputs, name, attrs)
        if op is not None:
            return op
    args = opdef.input_args
    if len(inputs) != len(args):
        raise TypeError(f"{op_type} takes {len(args)} inputs, got {len(inputs)}")
    graph = _graph_of([x for v in inputs for x in (v if isinstance(v, (list, tuple)) else [v])]) \
        if inputs else get_default_graph()
    if opdef.deprecation is not None:
        from flowloom.framework.op_versions import check_deprecation

        check_deprecation(opdef, graph)
    if name and name[-1] == "/":
        op_name = name[:-1]
    else:
        op_name = graph.unique_name(name or op_type)
    # TF builds an op inside its own name scope: Python values become Consts named after
    # their argument (`add/y`), and a cond's Switch for an input is `add/Switch`.
    state = graph._thread_local  # (Graph._name_stack without its property's calls)
    saved_stack, state.name_stack = state.name_stack, op_name
    try:
        flat = _convert_inputs(op_type, opdef, args, inputs, attrs)
        for k, v in opdef.attr_defaults.items():
            if k not in attrs:
                attrs[k] = v
        if opdef.attr_hook is not None:
            opdef.attr_hook(attrs)
        _check_allowed(opdef, attrs)
        out_dtypes = _output_dtypes(opdef, attrs, flat)
        # TF creates an op that writes through a reference colocated with the variable.
        must_colocate = opdef.ref_input_indices and [t for t in flat if t._dtype.is_ref_dtype]
        if must_colocate:
            return _create_colocated(graph, must_colocate, opdef, flat, out_dtypes, attrs,
                                     op_name)
        return graph._create_op_internal(opdef, flat, out_dtypes, attrs, op_name)
    finally:
        state.name_stack = saved_stack


# Attr values that are neither bytes nor function attrs (most attrs an op is given).
_PLAIN_ATTR_CLASSES = frozenset((bool, int, float, str, type(None), dtypes.DType,
                                 TensorShape))


def _fast_spec(opdef):
    """What the fast path needs of an op type whose inputs and outputs are single tensors,
    worked out once per type; False for other types."""
    if any(a.is_list for a in opdef.input_args) or any(a.is_list for a in opdef.output_args) \
            or opdef.deprecation is not None:
        return False
    sig = tuple((a.type_attr, a.fixed_dtype, a.is_ref) for a in opdef.input_args)
    outs = tuple((a.type_attr, a.fixed_dtype, a.is_ref) for a in opdef.output_args)
    allowed = tuple((k, tuple(v)) for k, v in opdef.allowed_types.items())
    return sig, tuple(opdef.attr_defaults.items()), allowed, outs


def _apply_fast(opdef, fast, inputs, name, attrs):
    """The op, when every input is already a Tensor of the right type (most calls); None
    sends the call down the general path (conversions and every error message live there)."""
    sig, defaults, allowed, outs = fast
    if len(inputs) != len(sig):
        return None
    graph = bound = refs = None
    for (type_attr, fixed, is_ref), t in zip(sig, inputs):
        if type(t) is not Tensor:
            return None
        base = t._dtype
        if base._enum > 100:  # a reference
            base = base.base_dtype
            if refs is None:
                refs = []
            refs.append(t)  # TF colocates an op that writes through it with the variable
        elif is_ref:
            return None
        if fixed is not None:
            if base is not fixed:
                return None
        else:
            want = attrs.get(type_attr)
            if want is None and bound is not None:
                want = bound.get(type_attr)
            if want is None:
                if bound is None:
                    bound = {}
                bound[type_attr] = base
            elif want is not base:
                return None
        if graph is None:
            graph = t._op._graph
    if bound:
        attrs.update(bound)
    stack = _default_graph_stack.stack  # (get_default_graph, without its call)
    default = stack[-1] if stack else get_default_graph()
    if graph is None or (default is not graph and default._outer_graph is not None):
        graph = default  # no inputs, or a function being built captures outer tensors
    for k, v in defaults:
        if k not in attrs:
            attrs[k] = v
    if opdef.attr_hook is not None:
        opdef.attr_hook(attrs)
    for k, types in allowed:
        if k in attrs and attrs[k] not in types:
            _check_allowed(opdef, attrs)
    out_dtypes = []
    for type_attr, fixed, is_ref in outs:
        dt = fixed if fixed is not None else attrs.get(type_attr)
        if dt is None:
            return None
        if type(dt) is not dtypes.DType:
            dt = dtypes.as_dtype(dt)
        out_dtypes.append(dt._as_ref if is_ref else dt)
    if opdef.deprecation is not None:
        from flowloom.framework.op_versions import check_deprecation

        check_deprecation(opdef, graph)
    if name and name[-1] == "/":
        op_name = name[:-1]
    else:
        op_name = graph.unique_name(name or opdef.type)
    state = graph._thread_local
    saved_stack, state.name_stack = state.name_stack, op_name  # the op's own, as above
    try:
        if refs is not None and opdef.ref_input_indices:
            return _create_colocated(graph, refs, opdef, list(inputs), out_dtypes, attrs, op_name)
        # depth 5: the caller of apply_op (this function and apply_op are flowloom frames)
        return graph._create_op_internal(opdef, list(inputs), out_dtypes, attrs, op_name, depth=5)
    finally:
        state.name_stack = saved_stack


def _check_allowed(opdef, attrs):
    for k, types in opdef.allowed_types.items():
        if k in attrs and attrs[k] not in types:
            raise TypeError(
                f"Value passed to parameter '{_arg_of_attr(opdef, k)}' has DataType "
                f"{attrs[k].name} not in list of allowed values: "
                f"{', '.join(t.name for t in types)}")


def _create_colocated(graph, tensors, opdef, flat, out_dtypes, attrs, op_name):
    if not tensors:
        return graph._create_op_internal(opdef, flat, out_dtypes, attrs, op_name)
    stack = graph._colocation_stack
    op = tensors[0]._op
    if stack and stack[-1]._op is op and not graph._device_function_stack and \
            _colocation_root(op) is op:
        # Already inside colocate_with(that op) (a variable's Assign): entering it again
        # would give the same `_class` and device.
        return _create_colocated(graph, tensors[1:], opdef, flat, out_dtypes, attrs, op_name)
    with graph.colocate_with(op):
        return _create_colocated(graph, tensors[1:], opdef, flat, out_dtypes, attrs, op_name)


def _convert_inputs(op_type, opdef, args, inputs, attrs):
    flat = []
    source = {}  # type attr -> the argument that set it, for error messages
    for arg, value in zip(args, inputs):
        if arg.number_attr is not None:
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"Expected list for '{arg.name}' argument to '{op_type}' Op, not "
                                f"{value!r}.")
            # As TF: the list's Python values take the dtype of its first Tensor.
            dt = attrs.get(arg.type_attr) or next(
                (v._dtype.base_dtype for v in value if isinstance(v, Tensor)), None)
            ts = []
            for i, v in enumerate(value):
                # TF names the Consts of a list argument `values_0`, `values_1`, ...
                t = _convert(v, dt, arg, op_type, source, name=f"{arg.name}_{i}")
                if dt is None:
                    dt = t._dtype.base_dtype
                ts.append(t)
            for t in ts:
                if t._dtype.base_dtype != dt:
                    raise TypeError(
                        f"Tensors in list passed to '{arg.name}' of '{op_type}' Op have types "
                        f"[{', '.join(x._dtype.name for x in ts)}] that don't all match.")
            attrs[arg.number_attr] = len(ts)
            if arg.type_attr is not None and dt is not None:
                attrs[arg.type_attr] = dt
            flat.extend(ts)
        elif arg.type_list_attr is not None:
            # As convert_n_to_tensor: `data_0`, `data_1`, ... (Assert's message strings).
            ts = [convert_to_tensor(v, name=f"{arg.name}_{i}") for i, v in enumerate(value)]
            attrs[arg.type_list_attr] = [t._dtype.base_dtype for t in ts]
            flat.extend(ts)
        else:
            want = arg.fixed_dtype if arg.fixed_dtype is not None else attrs.get(arg.type_attr)
            # As TF: a Python value of an input whose type attr has a default prefers it.
            t = _convert(value, want, arg, op_type, source,
                         preferred=opdef.attr_defaults.get(arg.type_attr) if want is None else None)
            if arg.type_attr is not None and arg.type_attr not in attrs:
                attrs[arg.type_attr] = t._dtype.base_dtype
                source[arg.type_attr] = arg.name
            flat.append(t)
    return flat


def _arg_of_attr(opdef, attr):
    for a in opdef.input_args:
        if a.type_attr == attr:
            return a.name
    return attr


def _convert(value, dtype, arg, op_type, source, name=None, preferred=None):
    if isinstance(value, Tensor):
        if arg.is_ref:
            if not value._dtype.is_ref_dtype:
                raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a mutable "
                                "tensor (e.g.: a tf.Variable)")
        if dtype is not None and value._dtype.base_dtype is not dtype:
            raise TypeError(
                f"Input '{arg.name}' of '{op_type}' Op has type {value._dtype.base_dtype.name} "
                f"that does not match {_expected(dtype, arg, source)}.")
        return value
    try:
        t = convert_to_tensor(value, dtype=dtype, as_ref=arg.is_ref, name=name or arg.name,
                              preferred_dtype=preferred)
    except (TypeError, ValueError) as e:
        if dtype is not None:
            raise TypeError(
                f"Expected {dtype.name} passed to parameter '{arg.name}' of op '{op_type}', "
                f"got {value!r} of type '{type(value).__name__}' instead. Error: {e}") from None
        raise
    if arg.is_ref and not t._dtype.is_ref_dtype:
        raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a mutable tensor "
                        "(e.g.: a tf.Variable)")
    return t


def _expected(dtype, arg, source):
    if arg.type_attr in source:
        return f"type {dtype.name} of argument '{source[arg.type_attr]}'"
    return f"expected type of {dtype.name}"


def _output_dtypes(opdef, attrs, inputs):
    out = []
    for arg in opdef.output_args:
        if arg.type_list_attr is not None:
            out.extend(dtypes.as_dtype(d) for d in attrs[arg.type_list_attr])
            continue
        if arg.fixed_dtype is not None:
            dt = arg.fixed_dtype
        else:
            dt = attrs.get(arg.type_attr)
            if dt is None:
                raise ValueError(f"{opdef.type}: attr '{arg.type_attr}' is not set")
            dt = dtypes.as_dtype(dt)
        if arg.is_ref:
            dt = dt._as_ref
        if arg.number_attr is not None:
            out.extend([dt] * attrs[arg.number_attr])
        else:
            out.append(dt)
    return out
