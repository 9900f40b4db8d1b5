"""`tf.import_graph_def`: adds the nodes of a GraphDef to the default graph.

Nothing in a GraphDef is executed or evaluated while importing: node types are looked up in
flowloom's op registry (an unknown type is an error), attrs are decoded from their protos
with sizes checked first, and every op goes through the same creation path (shape
functions included) as ops built in Python; a while loop's NextIteration -> Merge back edges
are connected once the loop body exists. An import that fails leaves the graph as it was.
"""

import heapq
import threading

from flowloom.framework import lazy_registry
from flowloom.framework import errors
from flowloom.framework import op_def as op_registry
from flowloom.framework.apply_op import _output_dtypes
from flowloom.framework.graph import _VALID_OP_NAME, get_default_graph, name_scope
from flowloom.framework.graph_def import (
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    attr_kind_name,
    attr_value_to_python,
    prepend_name_scope,
)
from flowloom.framework.import_shapes import refine_from_output_shapes
from flowloom.framework.ops import Operation, Tensor
from flowloom.proto import graph_pb2

# Attrs that describe a node for export only: re-derived, never imported.
_EXPORT_ONLY_ATTRS = ("_output_shapes",)


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports the graph from `graph_def` into the current default Graph.

    Args:
      graph_def: a `GraphDef` proto.
      input_map: dict of tensor names in `graph_def` ("x:0", "x", or "^x" for a control
        input) to Tensors (or Operations, for "^x") of the current graph to use instead.
      return_elements: names in `graph_def` to return: "x:0" returns a Tensor, "x" the
        Operation.
      name: prefix for the imported names (default "import"; "" for none).
      op_dict: ignored (as in TF).
      producer_op_list: an `OpList` of the ops as the producer knew them; attrs the
        producer set to its default that flowloom's op does not know are dropped.

    Returns:
      The list of Tensors/Operations named in `return_elements`, or None.

    Raises:
      TypeError: if an argument has the wrong type.
      ValueError: for a malformed GraphDef (bad input, attr of the wrong kind, cycle, ...),
        or `input_map`/`return_elements` names not found in it.
      NotFoundError: for an op type flowloom does not have.

    Example:
      graph_def = tf.GraphDef.FromString(open("frozen.pb", "rb").read())
      x, y = tf.import_graph_def(graph_def, return_elements=["input:0", "output:0"])
    """
    del op_dict
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    if name == "" and input_map and not all(isinstance(v, (Tensor, Operation))
                                            for v in input_map.values()):
        raise ValueError("tf.import_graph_def() requires a non-empty `name` if `input_map` "
                         "contains non-Tensor values. Try calling tf.convert_to_tensor() on "
                         "`input_map` values before calling tf.import_graph_def().")
    input_map = _check_input_map(input_map)
    if return_elements is not None:
        if isinstance(return_elements, (str, bytes)) or not all(
                isinstance(x, (str, bytes)) for x in return_elements):
            raise TypeError("return_elements must be a list of strings.")
        return_elements = [x.decode("utf-8") if isinstance(x, bytes) else x
                           for x in return_elements]
        for x in return_elements:
            if x.count(":") > 1 or (":" in x and not x.rpartition(":")[2].isdigit()):
                raise ValueError(f"Cannot convert {x!r} to a tensor name.")
    _check_versions(graph_def)
    graph = get_default_graph()
    mapped_values = [v for v in input_map.values() if isinstance(v, Tensor)]
    outer_name_stack = graph._name_stack
    with name_scope(name, "import", mapped_values or None) as scope:
        prefix = scope[:-1] if scope else ""
        if graph_def.library.function or graph_def.library.gradient:
            if not _library_hooks:
                lazy_registry.load("graph_library", "function_library")
            if not _library_hooks:
                raise errors.UnimplementedError(None, None, "function libraries need "
                                                "flowloom.function (import flowloom)")
            _library_hooks[0](graph, graph_def.library)
        importer = _Importer(graph, graph_def, input_map, prefix, producer_op_list)
        # As TF's shape refiner: the imported nodes' shape functions see the merged versions
        # (a Placeholder of a producer-21 GraphDef reads a scalar shape as unknown).
        versions = graph._graph_def_versions
        _merge_versions(graph, graph_def.versions)
        try:
            results = importer.run(return_elements, outer_name_stack)
        except BaseException:
            graph._graph_def_versions = versions
            raise
    return results


# The function package registers how a GraphDef's function library is added to a graph.
_library_hooks = []

# Set while this thread creates imported ops outside their control-flow context: their
# inputs' contexts are checked once they join it (_Importer._add_to_context), as TF's.
_creating = threading.local()


def creating_imported_ops():
    """True while this thread's import_graph_def creates ops, before they join the enclosing
    cond or while context (control_flow_util's input check waits until they do)."""
    return getattr(_creating, "active", False)


def _opdef_of(graph, op_type):
    """The OpDef of `op_type`: registered, or a function of the graph's library."""
    opdef = op_registry.get(op_type, load_all=False)
    if opdef is None:
        body = getattr(graph, "_functions", {}).get(op_type)
        opdef = body.opdef if body is not None else op_registry.get(op_type)
    return opdef


def _check_input_map(input_map):
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    out = {}
    for key, value in input_map.items():
        if isinstance(key, bytes):
            key = key.decode("utf-8")
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        if hasattr(value, "_as_graph_element") and not isinstance(value, (Tensor, Operation)):
            value = value._as_graph_element()
        if key.startswith("^"):
            if isinstance(value, Tensor):
                value = value.op
            if not isinstance(value, Operation):
                raise TypeError(f"input_map entry {key!r} must map to an Operation.")
        elif not isinstance(value, Tensor):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        else:
            key = _canonical_tensor_name(key)
        out[key] = value
    return out


def _canonical_tensor_name(name):
    return name if ":" in name else name + ":0"


def _check_versions(graph_def):
    from flowloom.version import VERSION

    versions = graph_def.versions
    if versions.producer < GRAPH_DEF_VERSION_MIN_PRODUCER:
        raise ValueError(f"GraphDef producer version {versions.producer} below min producer "
                         f"{GRAPH_DEF_VERSION_MIN_PRODUCER} supported by TensorFlow {VERSION}.  "
                         "Please regenerate your graph.")
    if versions.min_consumer > GRAPH_DEF_VERSION:
        raise ValueError(f"GraphDef min consumer version {versions.min_consumer} above current "
                         f"version {GRAPH_DEF_VERSION} for TensorFlow {VERSION}.  Please upgrade "
                         "TensorFlow.")
    if GRAPH_DEF_VERSION in versions.bad_consumers:
        raise ValueError(f"GraphDef disallows consumer version {GRAPH_DEF_VERSION}.  Please "
                         "upgrade TensorFlow: this version is likely buggy.")


def _merge_versions(graph, versions):
    """TF's rule for the importing graph's versions: the older producer, the newer
    min_consumer, and every bad consumer of both."""
    from flowloom.framework.graph_def import versions_def

    merged = versions_def(graph)
    merged.producer = min(merged.producer, versions.producer)
    merged.min_consumer = max(merged.min_consumer, versions.min_consumer)
    merged.bad_consumers.extend(b for b in versions.bad_consumers
                                if b not in merged.bad_consumers)
    graph._graph_def_versions = merged


def _map_key(source, index):
    """The input_map key of an input: 'x:1', or '^x' for a control input (index -1)."""
    return "^" + source if index < 0 else f"{source}:{index}"


def _source_of_key(key):
    return key[1:] if key.startswith("^") else key.rpartition(":")[0]


def _is_back_edge(source_node, consumer_node, index):
    """A while loop's NextIteration -> Merge edge: the one edge that may close a cycle."""
    return (index >= 0 and source_node.op in ("NextIteration", "RefNextIteration")
            and consumer_node.op in ("Merge", "RefMerge"))


def _parse_input(node_name, text):
    """'^x' -> ('x', -1); 'x:2' -> ('x', 2); 'x' -> ('x', 0)."""
    if text.startswith("^"):
        source = text[1:]
        if not source or ":" in source:
            raise ValueError(f"Node '{node_name}': malformed control input '{text}'")
        return source, -1
    source, sep, index = text.rpartition(":")
    if sep and index.isdigit():
        return source, int(index)
    source = text  # as TF: a name with no index (then no node has it: names have no ':')
    if not source:
        raise ValueError(f"Node '{node_name}': empty input name")
    return source, 0


# The most outputs an imported node may have: sizes from a file are bounded before anything is
# allocated for them (a NodeDef's `N` or `num_split` is just a number).
MAX_NODE_OUTPUTS = 1 << 17


def _check_counts(opdef, attrs, num_inputs, full):
    """The list lengths a node's attrs claim, checked before any list is built from them."""
    for args, what in ((opdef.input_args, "inputs"), (opdef.output_args, "outputs")):
        total = 0
        for arg in args:
            if arg.number_attr is not None:
                count = attrs.get(arg.number_attr)
                if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                    raise ValueError(f"Node '{full}': attr '{arg.number_attr}' must be a "
                                     "non-negative int")
                if count > 2**31 - 1:
                    raise ValueError(f"Number of outputs is too big: {count} (node '{full}', "
                                     f"attr '{arg.number_attr}')")
                total += count
            elif arg.type_list_attr is not None:
                total += len(attrs.get(arg.type_list_attr) or ())
            else:
                total += 1
        if what == "inputs" and total != num_inputs and total > MAX_NODE_OUTPUTS:
            raise ValueError(f"NodeDef expects {total} inputs, {num_inputs} specified; "
                             f"Op<name={opdef.type}>; NodeDef: {{{{node {full}}}}}")
        if what == "outputs" and total > MAX_NODE_OUTPUTS:
            raise ValueError(f"Node '{full}' would have {total} outputs, more than the "
                             f"{MAX_NODE_OUTPUTS} an imported node may have")


def _expected_kind(opdef, key):
    """TF's kind name an attr must have, or None when flowloom's op does not constrain it."""
    for arg in opdef.input_args + opdef.output_args:
        if arg.type_attr == key:
            return "type"
        if arg.number_attr == key:
            return "int"
        if arg.type_list_attr == key:
            return "list(type)"
    if key not in opdef.attr_defaults:
        return None
    default = opdef.attr_defaults[key]
    if default is None:
        return None
    from flowloom.framework.graph_def import KIND_NAMES, _kind_of

    if isinstance(default, (list, tuple)):
        inner = _kind_of(default[0]) if default else None
        return f"list({KIND_NAMES[inner]})" if inner else "list"
    kind = _kind_of(default)
    return KIND_NAMES[kind] if kind else None


def _kinds_match(expected, got):
    if expected is None or expected == got:
        return True
    if expected.startswith("list") and got.startswith("list"):
        return expected == "list" or got == "list"  # an empty list fits every list kind
    return False


class _Importer:
    """One import: validates the nodes, orders them, creates the ops (or none)."""

    def __init__(self, graph, graph_def, input_map, prefix, producer_op_list):
        self.graph = graph
        self.graph_def = graph_def
        self.input_map = input_map
        self.prefix = prefix
        self.created = {}  # node name in graph_def -> Operation
        self.node_names = {node.name for node in graph_def.node}
        self.back_edges = []  # (consumer's full name, input position, source, output index)
        self.nodes = {}  # full name -> its NodeDef
        self.producer_ops = {}
        self.renames = {}  # node name in graph_def -> its uniquified full name
        self.used_keys = set()  # input_map keys that replaced an input
        self.colocated = []  # (op, names of the ops it is colocated with)
        if producer_op_list is not None:
            self.producer_ops = {op.name: op for op in producer_op_list.op}

    def full_name(self, node_name):
        renamed = self.renames.get(node_name)
        return renamed if renamed is not None else prepend_name_scope(node_name, self.prefix)

    def _uniquify_names(self):
        """TF's rule: an imported node whose (prefixed) name the graph already has, as an op
        or a scope, becomes the first `name_N` free in the graph and the GraphDef; its
        consumers and colocation attrs follow it."""
        existing = self.graph._ops_by_name
        if not existing:
            return
        scopes = {op_name[:i] for op_name in existing for i, ch in enumerate(op_name)
                  if ch == "/"}
        wanted = {n: prepend_name_scope(n, self.prefix) for n in self.node_names}
        if not any(f in existing or f in scopes for f in wanted.values()):
            return
        imported = set(wanted.values())
        for node in self.graph_def.node:
            base = name = wanted[node.name]
            count = 0
            while name in existing or name in scopes or (count and name in imported):
                count += 1
                name = f"{base}_{count}"
            if count:
                self.renames[node.name] = name

    # -- validation and ordering ------------------------------------------------------------
    def _nodes_in_order(self):
        nodes = {}
        for node in self.graph_def.node:
            if not node.name:
                raise ValueError("GraphDef has a node with no name")
            if node.name in nodes:
                raise ValueError(f"Node '{node.name}' is not unique")
            if not _VALID_OP_NAME.match(node.name):
                raise ValueError(f"Node '{node.name}': Node name contains invalid characters")
            nodes[node.name] = node
        parsed = {}
        for node in nodes.values():
            if _opdef_of(self.graph, node.op) is None:
                raise errors.NotFoundError(
                    None, None, f"Op type not registered '{node.op}' in binary running on "
                    "flowloom. Make sure the Op and Kernel are registered in the binary running "
                    "in this process.")
            inputs = [_parse_input(node.name, text) for text in node.input]
            for text, (source, index) in zip(node.input, inputs):
                if _map_key(source, index) not in self.input_map and source not in nodes:
                    raise ValueError(f"Node '{node.name}': Unknown input node '{text}'")
            parsed[node.name] = inputs
        return self._topological(nodes, parsed), parsed

    def _topological(self, nodes, parsed):
        # Kahn's algorithm, keeping the GraphDef's order among ready nodes.
        pending = {}
        consumers = {name: [] for name in nodes}
        for name, inputs in parsed.items():
            deps = set()
            for source, index in inputs:
                if _map_key(source, index) not in self.input_map and not _is_back_edge(
                        nodes[source], nodes[name], index):
                    deps.add(source)
            pending[name] = len(deps)
            for source in deps:
                consumers[source].append(name)
        position = {name: i for i, name in enumerate(nodes)}
        ready = [(position[n], n) for n, count in pending.items() if count == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, name = heapq.heappop(ready)
            order.append(nodes[name])
            for consumer in consumers[name]:
                pending[consumer] -= 1
                if pending[consumer] == 0:
                    heapq.heappush(ready, (position[consumer], consumer))
        if len(order) != len(nodes):
            stuck = sorted(n for n, c in pending.items() if c > 0)
            raise ValueError("GraphDef contains a cycle that does not pass through a "
                             f"NextIteration op; nodes involved: {', '.join(stuck[:10])}")
        return order

    # -- creating ops --------------------------------------------------------------------------
    def run(self, return_elements, outer_name_stack=""):
        """Creates the ops; returns the requested elements (None if none were asked for)."""
        order, parsed = self._nodes_in_order()
        graph = self.graph
        self._uniquify_names()
        saved = (len(graph._ops), dict(graph._names_in_use), graph._version)
        context = graph._get_control_flow_context()
        try:
            # As TF's importer: the ops are created (and wired, back edges and control
            # inputs included) outside any control-flow context, then each is added to the
            # enclosing cond/while context in turn (Operation._control_flow_post_processing).
            graph._set_control_flow_context(None)
            _creating.active = context is not None
            try:
                for node in order:
                    self._create(node, parsed[node.name])
                self._connect_back_edges()
            finally:
                _creating.active = False
                graph._set_control_flow_context(context)
            if context is not None:
                self._add_to_context(context, outer_name_stack)
            self._colocated_devices()
            self._check_unused_input_map()
            if return_elements is None:
                return None
            return [self.return_element(n) for n in return_elements]
        except BaseException:
            self._rollback(saved)
            raise

    def _add_to_context(self, context, outer_name_stack):
        """Every imported op joins `context` (its inputs from outside go through Switch or
        Enter, an op without inputs waits on the pivot) once all of them exist, so that an
        imported while loop's ops are known to be one loop's and its own control inputs
        (`^while/Merge`) keep an op inside its frame. The ops this creates are named in the
        caller's name scope, as TF's."""
        from flowloom.framework.graph import _input_context_checks

        imported = list(self.created.values())
        for op in imported:
            op._control_flow_context = context
        saved_stack = self.graph._name_stack
        self.graph._name_stack = outer_name_stack
        try:
            for op in imported:
                if _input_context_checks:
                    for t in op._inputs:
                        if t._op._control_flow_context is not None:
                            _input_context_checks[0](op, context)
                            break
                context.AddOp(op)
        finally:
            self.graph._name_stack = saved_stack

    def _rollback(self, saved):
        count, names_in_use, version = saved
        graph = self.graph
        for op in graph._ops[count:]:
            graph._ops_by_name.pop(op._name, None)
            for t in op._inputs:
                if op in t._consumers:
                    t._consumers.remove(op)
            for c in op._control_inputs:
                if op in c._control_outputs:
                    c._control_outputs.remove(op)
        del graph._ops[count:]
        graph._names_in_use = names_in_use
        graph._version = version

    def _attrs(self, node, opdef, full):
        attrs = {}
        producer_op = self.producer_ops.get(node.op)
        producer_defaults = {}
        if producer_op is not None:
            producer_defaults = {a.name: a.default_value for a in producer_op.attr
                                 if a.HasField("default_value")}
        for key, value in node.attr.items():
            if key in _EXPORT_ONLY_ATTRS:
                continue
            if (key not in opdef.attr_defaults and key in producer_defaults
                    and producer_defaults[key] == value):
                continue
            got = attr_kind_name(value)
            want = _expected_kind(opdef, key)
            if not _kinds_match(want, got):
                raise ValueError(
                    f"AttrValue had value with type '{got}' when '{want}' expected\n\t for attr "
                    f"'{key}'\n\t; NodeDef: {{{{node {full}}}}}; Op<name={opdef.type}>")
            attrs[key] = attr_value_to_python(value, f"Node '{full}', attr '{key}'")
        for key, default in opdef.attr_defaults.items():
            if key not in attrs:
                if default is None:
                    raise ValueError(f"NodeDef missing attr '{key}' from Op<name={opdef.type}>; "
                                     f"NodeDef: {{{{node {full}}}}}")
                attrs[key] = default
        for key, allowed in opdef.allowed_types.items():
            if key in attrs and attrs[key] not in allowed:
                raise ValueError(
                    f"Value for attr '{key}' of {attrs[key].name} is not in the list of "
                    f"allowed values: {', '.join(t.name for t in allowed)}\n\t; NodeDef: "
                    f"{{{{node {full}}}}}; Op<name={opdef.type}>")
        if "_class" in attrs:
            self._check_colocation(node, attrs)
            if self.prefix or self.renames:  # names of this GraphDef's nodes follow them
                attrs["_class"] = [self._colocation(c) for c in attrs["_class"]]
        return attrs

    def _colocation(self, text):
        if isinstance(text, str) and text.startswith("loc:@") and text[5:] in self.node_names:
            return "loc:@" + self.full_name(text[5:])
        return text

    def _check_colocation(self, node, attrs):
        """As TF: every `loc:@x` names a node of the GraphDef or of the graph."""
        classes = attrs.get("_class") or ()
        if not isinstance(classes, (list, tuple)) or \
                not all(isinstance(t, (str, bytes)) for t in classes):
            raise ValueError(f"Node '{node.name}': attr '_class' must be a list of strings")
        for text in classes:
            text = text.decode() if isinstance(text, bytes) else text
            if text.startswith("loc:@") and text[5:] not in self.node_names and \
                    text[5:] not in self.graph._ops_by_name:
                raise ValueError(f"Node '{node.name}' expects to be colocated with unknown node "
                                 f"'{text[5:]}'")

    def _check_unused_input_map(self):
        """As TF: an input_map key that replaced nothing is an error when its node is not in
        the GraphDef or has no such output."""
        missing = []
        for key in self.input_map:
            if key in self.used_keys:
                continue
            source = _source_of_key(key)
            op = self.created.get(source)
            if op is None or (not key.startswith("^")
                              and int(key.rpartition(":")[2]) >= len(op._outputs)):
                missing.append(key)
        if missing:
            raise ValueError("Attempted to map inputs that were not found in graph_def: "
                             f"[{', '.join(sorted(missing))}]")

    def _input_tensor(self, full, source, index):
        mapped = self.input_map.get(_map_key(source, index))
        if mapped is not None:
            self.used_keys.add(_map_key(source, index))
            return mapped
        op = self.created[source]
        if index >= len(op._outputs):
            raise ValueError(f"Node '{full}': Connecting to invalid output {index} of source "
                             f"node {source} which has {len(op._outputs)} outputs.")
        return op._outputs[index]

    def _check_input_types(self, opdef, attrs, inputs, full):
        _check_counts(opdef, attrs, len(inputs), full)
        expected = []
        for arg in opdef.input_args:
            if arg.type_list_attr is not None:
                types = attrs.get(arg.type_list_attr)
                if not isinstance(types, list):
                    raise ValueError(f"Node '{full}': attr '{arg.type_list_attr}' must be a "
                                     "list of types")
                expected.extend((t, arg.is_ref) for t in types)
                continue
            dtype = arg.fixed_dtype if arg.fixed_dtype is not None else attrs.get(arg.type_attr)
            if dtype is None:
                raise ValueError(f"NodeDef missing attr '{arg.type_attr}' from "
                                 f"Op<name={opdef.type}>; NodeDef: {{{{node {full}}}}}")
            count = 1
            if arg.number_attr is not None:
                count = attrs.get(arg.number_attr)
                if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                    raise ValueError(f"Node '{full}': attr '{arg.number_attr}' must be a "
                                     "non-negative int")
            expected.extend([(dtype, arg.is_ref)] * count)
        if len(expected) != len(inputs):
            raise ValueError(f"NodeDef expected inputs '{_type_list(expected)}' do not match "
                             f"{len(inputs)} inputs specified; Op<name={opdef.type}>; NodeDef: "
                             f"{{{{node {full}}}}}")
        for i, ((dtype, is_ref), tensor) in enumerate(zip(expected, inputs)):
            want = dtype._as_ref if is_ref else dtype
            got = tensor._dtype if is_ref else tensor._dtype.base_dtype
            if got != want:
                raise ValueError(f"Input {i} of node {full} was passed {_type_name(got)} from "
                                 f"{tensor.name} incompatible with expected "
                                 f"{_type_name(want)}.")

    def _create(self, node, inputs):
        graph = self.graph
        full = self.full_name(node.name)
        opdef = _opdef_of(graph, node.op)
        attrs = self._attrs(node, opdef, full)
        data, control = [], []
        for source, index in inputs:
            if index < 0:
                mapped = self.input_map.get(_map_key(source, index))
                if mapped is not None:
                    self.used_keys.add(_map_key(source, index))
                control.append(mapped if mapped is not None else self.created[source])
            elif source not in self.created and _map_key(source, index) not in self.input_map:
                # A loop's back edge: stands in for now, connected once its source exists.
                self.back_edges.append((full, len(data), source, index))
                data.append(None)
            else:
                data.append(self._input_tensor(node.name, source, index))
        back_edge = None in data
        if back_edge:
            stand_in = next((t for t in data if t is not None), None)
            if stand_in is None:
                raise ValueError(f"Node '{full}': a Merge needs one input from outside its loop")
            data = [stand_in if t is None else t for t in data]
        self._check_input_types(opdef, attrs, data, full)
        try:
            out_dtypes = _output_dtypes(opdef, attrs, data)
            op = graph._create_op_internal(opdef, data, out_dtypes, attrs, full, devices=False)
        except (ValueError, TypeError, errors.OpError, RuntimeError):
            raise
        except Exception as e:  # a shape function meeting attrs it never expected
            raise ValueError(f"Node '{full}' ({node.op}): invalid attrs or inputs: "
                             f"{type(e).__name__}: {e}") from e
        refine_from_output_shapes(op, node, check=not back_edge)
        self.nodes[full] = node
        self._set_device(op, node, full)
        # TF gives every imported op the enclosing control dependencies, even ops whose
        # inputs were imported in the same block.
        for controller in graph._control_dependencies_stack:
            control.extend(controller.control_inputs)
        for c in control:
            op._add_control_input(c)
        self.created[node.name] = op
        key = full.lower()
        graph._names_in_use[key] = max(graph._names_in_use.get(key, 0), 1)

    def _set_device(self, op, node, full):
        """TF's rule: an op colocated with another node waits for that node's device (see
        _colocated_devices); any other gets the graph's device functions applied with its
        NodeDef's device as the innermost scope."""
        from flowloom.framework import device as device_lib

        others = [c[5:] for c in (op._attrs.get("_class") or ())
                  if isinstance(c, str) and c.startswith("loc:@") and c[5:] != full]
        if others:
            op._device = ""
            self.colocated.append((op, others))
            return
        stack = list(self.graph._device_function_stack)
        if node.device:
            try:
                stack.append(device_lib.MergeDevice(node.device))
            except (ValueError, TypeError) as e:
                raise ValueError(f"Node '{full}': invalid device '{node.device}': {e}") from None
        if stack:
            op._device = device_lib.apply_device_stack(stack, op)

    def _colocated_devices(self):
        """An op colocated with others takes the device of the first of them that has one."""
        by_name = self.graph._ops_by_name
        for op, names in self.colocated:
            for name in names:
                other = by_name.get(name)
                if other is not None and other._device:
                    op._device = other._device
                    break

    def _connect_back_edges(self):
        from flowloom.framework.graph import _set_shapes

        for full, position, source, index in self.back_edges:
            op = self.graph._ops_by_name[full]
            tensor = self._input_tensor(full, source, index)
            if tensor._dtype != op._inputs[position]._dtype:
                raise ValueError(f"Input {position} of node {full} was passed "
                                 f"{tensor._dtype.name} from {tensor.name} incompatible with "
                                 f"expected {op._inputs[position]._dtype.name}.")
            op._update_input(position, tensor)
            if op._opdef.shape_fn is not None:
                try:
                    _set_shapes(op, op._opdef)
                except (ValueError, TypeError):
                    raise
                except Exception as e:
                    raise ValueError(f"Node '{full}' ({op._type}): invalid attrs or inputs: "
                                     f"{type(e).__name__}: {e}") from e
            refine_from_output_shapes(op, self.nodes[full])

    # -- results -------------------------------------------------------------------------------
    def return_element(self, name):
        if ":" in name:
            source, _, index = name.rpartition(":")
            op = self.created.get(source)
            if op is None or not index.isdigit():
                raise ValueError(f"Requested return tensor '{name}' not found in graph def")
            if int(index) >= len(op._outputs):
                raise ValueError(f"Invalid return output {index} of node '{source}', which has "
                                 f"{len(op._outputs)} output(s)")
            return op._outputs[int(index)]
        op = self.created.get(name)
        if op is None:
            raise ValueError(f"Requested return node '{name}' not found in graph def")
        return op


def _type_name(dtype):
    from flowloom.ops.array.array_ops import dtype_string

    return dtype_string(dtype.base_dtype) + ("_ref" if dtype.is_ref_dtype else "")


def _type_list(expected):
    from flowloom.ops.array.array_ops import dtype_string

    return ", ".join("?" if d is None else dtype_string(d) + ("_ref" if r else "")
                     for d, r in expected)
