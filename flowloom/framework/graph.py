"""The Graph: ops by name, unique names, and the scope stacks that shape new ops."""

import contextlib
import re
import threading

from flowloom.framework import device as device_lib
from flowloom.framework import errors
from flowloom.framework import observers
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph_keys import GraphKeys  # noqa: F401 - tf.GraphKeys lives here too
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.op_metadata import device_display_name
from flowloom.framework.ops import Operation, Tensor, _add_control_output
from flowloom.framework.tensor_shape import TensorShape, as_shape, interned
from flowloom.framework.user_stack import user_site

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def _thread_property(attr):
    """A construction state of the graph that each thread has its own of."""
    return property(lambda self: getattr(self._thread_local, attr),
                    lambda self, value: setattr(self._thread_local, attr, value))


def _stack_property(attr):
    """A construction stack of the graph: shared (`_graph<attr>`) until
    `switch_to_thread_local`, then per thread."""
    shared = "_graph" + attr

    def get(self):
        if not self._stack_state_is_thread_local:
            return self.__dict__[shared]
        return self._thread_stack(attr)

    def set(self, value):
        if not self._stack_state_is_thread_local:
            self.__dict__[shared] = value
        else:
            setattr(self._thread_local, attr, value)
    return property(get, set)


class Graph:
    """A TensorFlow computation: Operations (nodes) joined by Tensors (edges).

    Ops are added by the `tf.*` functions to the default graph; `with g.as_default():`
    makes `g` the default for the block.
    """

    _default_original_op = None  # set in a `Graph._original_op(op)` block (op_construction)
    _container = ""  # set in a `tf.container(name)` block (framework/container.py)

    def __init__(self):
        self._ops_by_name = {}
        self._ops = []
        self._names_in_use = {}
        # As TF: the name scope is per thread; the control-dependency, device and colocation
        # stacks are shared until `switch_to_thread_local()`, then per thread.
        self._thread_local = _ThreadState()
        self._stack_state_is_thread_local = False
        self._graph_control_dependencies_stack = []  # list of _ControlDependenciesController
        self._graph_device_function_stack = []  # callables op -> device string
        self._graph_colocation_stack = []  # _Colocation contexts (op and user line)
        self._attr_scope_map = {}
        self._collections = {}
        self._finalized = False
        self._version = 0
        self._seed = None
        # Held while names are made unique and ops are added (TF's Graph._lock), so threads
        # can build into one graph; sessions snapshot the ops under it.
        self._lock = threading.RLock()
        self._unfeedable = set()
        self._unfetchable = set()
        self._gradient_override_map = {}
        self._building_function = False
        self._outer_graph = None  # set by graphs of functions that capture outer tensors
        self._graph_def_versions = None
        # Read for every op made: instance attributes, which Python reads faster than the
        # class attributes they shadow.
        self._default_original_op = None
        self._container = ""

    # -- per-thread construction state ----------------------------------------
    _name_stack = _thread_property("name_stack")
    # (priority, creator) pairs of tf.variable_creator_scope (flowloom/variable_creator.py)
    _variable_creator_stack = _thread_property("variable_creator_stack")

    # The CondContext/WhileContext new ops go into: per thread, so that a loop built in one
    # thread does not take in the ops other threads build into the graph meanwhile.
    _control_flow_context = _thread_property("control_flow_context")

    def _thread_stack(self, attr):
        if not self._stack_state_is_thread_local:
            return getattr(self, "_graph" + attr)
        local = self._thread_local
        stack = getattr(local, attr, None)
        if stack is None:
            # A thread starts from the shared stack as it was when the graph switched.
            stack = list(getattr(self, "_graph" + attr))
            setattr(local, attr, stack)
        return stack

    _control_dependencies_stack = _stack_property("_control_dependencies_stack")
    _device_function_stack = _stack_property("_device_function_stack")
    _colocation_stack = _stack_property("_colocation_stack")

    def switch_to_thread_local(self):
        """Makes the device, colocation and control-dependency stacks thread-local (TF's API).

        Before the call threads share them; after it each thread has its own copy, starting
        from the stacks as they were at the call. The name scope is always per thread.
        """
        self._stack_state_is_thread_local = True

    # -- default-graph handling ---------------------------------------------
    def as_default(self):
        """Returns a context manager that makes this graph the default graph."""
        return _default_graph_stack.get_controller(self)

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def finalized(self):
        return self._finalized

    def finalize(self):
        """Makes this graph read-only: adding an op afterwards raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    @property
    def version(self):
        return len(self._ops)

    @property
    def building_function(self):
        return self._building_function

    # -- names ----------------------------------------------------------------
    def get_name_scope(self):
        return self._name_stack

    def unique_name(self, name, mark_as_used=True):
        """Returns `name` under the current name scope, made unique as TF does (`x_1`)."""
        if isinstance(name, bytes):
            name = name.decode("utf-8")
        stack = self._thread_local.name_stack
        if stack:
            name = stack + "/" + name
        key = name.lower()
        in_use = self._names_in_use
        lock = self._lock
        lock.acquire()
        try:
            i = in_use.get(key, 0)
            if mark_as_used:
                in_use[key] = i + 1
            if i > 0:
                base_key = key
                key = "%s_%d" % (base_key, i)
                while key in in_use:
                    i += 1
                    key = "%s_%d" % (base_key, i)
                if mark_as_used:
                    in_use[key] = 1
                name = "%s_%d" % (name, i)
        finally:
            lock.release()
        return name

    def name_scope(self, name):
        """Opens a name scope; yields its name with a trailing '/' ("" at the root)."""
        if name:
            if isinstance(name, Tensor) or not isinstance(name, str):
                raise TypeError(f"name for name_scope must be a string, got {name!r}")
            if name not in _valid_scope_names:
                if _VALID_OP_NAME.match(name):
                    if len(_valid_scope_names) < 65536:  # valid at the root, so anywhere
                        _valid_scope_names.add(name)
                elif not (self._thread_local.name_stack and _VALID_SCOPE_NAME.match(name)):
                    raise ValueError(f"'{name}' is not a valid scope name")
        return _NameScope(self, name)

    # -- op creation ----------------------------------------------------------
    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None,
                  op_def=None, compute_shapes=True, compute_device=True):
        """Adds an op of registered type `op_type` (TF1's low-level `Graph.create_op`)."""
        opdef = op_registry.get(op_type)
        if opdef is None:
            raise ValueError(f"Op type not registered '{op_type}' in binary.")
        name = self.unique_name(name or op_type) if not (name and name.endswith("/")) \
            else name[:-1]
        return self._create_op_internal(opdef, list(inputs), list(dtypes or []), dict(attrs or {}),
                                        name)

    def _create_op_internal(self, opdef, inputs, output_dtypes, attrs, name, op=None, bare=False,
                            devices=True, depth=3):
        lock = self._lock
        lock.acquire()
        try:
            if self._finalized:
                raise RuntimeError("Graph is finalized and cannot be modified.")
            if name in self._ops_by_name:
                raise ValueError(f"Duplicate node name in graph: '{name}'")
            for t in inputs:
                if t._op._graph is not self:
                    self._capture_inputs(inputs, name)
                    break
            if self._stack_state_is_thread_local:
                control_stack = self._control_dependencies_stack
                colocation_stack = self._colocation_stack
                device_stack = self._device_function_stack
            else:
                control_stack = self._graph_control_dependencies_stack
                colocation_stack = self._graph_colocation_stack
                device_stack = self._graph_device_function_stack
            if bare:  # TF's Operation(node_def, g): no stack applies, only the control-flow context
                control_stack = colocation_stack = device_stack = ()
            elif not devices:  # the importer applies device functions itself
                device_stack = ()
            control_inputs = self._current_control_inputs(inputs, control_stack) \
                if control_stack else ()
            if self._attr_scope_map and not bare:
                for k, v in self._attr_scope_map.items():
                    attrs.setdefault(k, v)
            if self._container and opdef.stateful and "container" in opdef.attr_defaults \
                    and not attrs.get("container"):
                attrs["container"] = self._container  # tf.container: stateful ops with the attr
            if colocation_stack:
                # TF: the union of the groups of every op on the colocation stack, sorted.
                attrs["_class"] = sorted({n for c in colocation_stack for n in _group_names(c._op)})
            if self._gradient_override_map and not bare and \
                    opdef.type in self._gradient_override_map:
                # TF records the override on the op; tf.gradients reads it back.
                attrs["_gradient_op_type"] = self._gradient_override_map[opdef.type].encode()
            op = Operation.__new__(Operation) if op is None else op  # an Operation(node_def, g)
            op._init(self, name, opdef, inputs, output_dtypes, attrs, control_inputs, depth)
            # Where the blocks were opened (op_metadata); `device(None)` entries name no block.
            if colocation_stack or (device_stack and device_stack.count(None) != len(device_stack)):
                op._scope_sites = (tuple(device_stack), colocation_stack)
            for t in inputs:
                t._consumers.append(op)
            if control_stack:
                for c in control_inputs:
                    _add_control_output(c, op)
                for controller in control_stack:
                    controller.ops_created.add(op)
            self._ops_by_name[name] = op
            ops = self._ops
            ops.append(op)
            op._id = len(ops)
            if opdef.shape_fn is not None:
                try:
                    _set_shapes(op, opdef)
                except BaseException:
                    self._discard_op(op)  # as TF: an op whose shapes fail is not in the graph
                    raise
            # Device functions see the op with its output shapes set, as in TF (a ps strategy
            # such as byte_size_load_fn reads them).
            if device_stack and device_stack[-1] is not None:  # None: no device scope applies
                op._device = self._apply_device_functions(op)
            if colocation_stack:
                for colocated in reversed(colocation_stack):
                    # The innermost colocation op with a device gives it (after device scopes).
                    if colocated._op._device:
                        op._device = colocated._op._device
                        break
            context = self._thread_local.control_flow_context
            if _input_context_checks:
                for t in inputs:  # a loop, not any(genexpr): this runs for every op made
                    if t._op._control_flow_context:
                        _input_context_checks[0](op, context)  # TF's rule
                        break
            if context is not None:
                # cond/while_loop: the context rewires inputs (Switch, Enter) in the current name
                # scope, as TF: apply_op's is the op's own (`cond/add/Switch`), a Const's is not.
                op._control_flow_context = context
                context.AddOp(op)
            if observers.op_created:
                for observer in observers.op_created:
                    observer(op)
            return op
        finally:
            lock.release()

    def _capture_inputs(self, inputs, name):
        for i, t in enumerate(inputs):
            if t._op._graph is not self:
                # A function's graph (tf.data) captures tensors of the graphs around it.
                captured = self._capture(t) if self._outer_graph is not None else None
                if captured is None:
                    raise ValueError(
                        f"Tensor {t!r} must be from the same graph as the op being created "
                        f"({name}).")
                inputs[i] = captured

    def _discard_op(self, op):
        """Removes the op just created (its name stays used, as in TF)."""
        with self._lock:
            self._discard_op_locked(op)

    def _discard_op_locked(self, op):
        for t in op._inputs:
            t._consumers.remove(op)
        for c in op._control_inputs:
            c._control_outputs.remove(op)
        for controller in self._control_dependencies_stack:
            controller.ops_created.discard(op)
        del self._ops_by_name[op._name]
        self._ops.remove(op)

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    def _apply_device_functions(self, op):
        return device_lib.apply_device_stack(self._device_function_stack, op)

    # -- control dependencies ---------------------------------------------------
    def _current_control_inputs(self, inputs, stack=None):
        stack = self._control_dependencies_stack if stack is None else stack
        if not stack:
            return []
        ret = []
        input_ops = None
        for controller in stack:
            dominated = False
            if input_ops is None:
                input_ops = {t._op for t in inputs}
            for op in input_ops:
                if op in controller.ops_created:
                    dominated = True
                    break
            if not dominated:
                for c in controller.control_inputs:
                    if c not in ret and c not in input_ops:
                        ret.append(c)
        return ret or ()  # a shared empty tuple: no container per op without control inputs

    def control_dependencies(self, control_inputs):
        """Ops created in the block run only after all of `control_inputs` have run.

        Only ops *created* inside the block get the dependency: `y = x` inside it adds
        nothing, `y = tf.identity(x)` does. `None` clears the dependencies of outer blocks.
        """
        if control_inputs is None:
            return _ControlDependenciesController(self, None)
        ops = []
        for c in control_inputs:
            if callable(c) and not isinstance(c, (Tensor, Operation)) and \
                    not hasattr(c, "_as_graph_element"):
                c = c()
            # As TF: a (resource or unread) variable's op, so no read is made or waited for.
            by_op = isinstance(c, IndexedSlices) or hasattr(c, "_handle") and hasattr(c, "op")
            c = self.as_graph_element(c.op if by_op else c)
            if isinstance(c, Tensor):
                c = c._op
            if c not in ops:
                ops.append(c)
        return _ControlDependenciesController(self, ops)

    # -- devices ------------------------------------------------------------------
    def device(self, device_name_or_function):
        """Sets the device for ops created in the block (a string, DeviceSpec, function or None)."""
        entry = device_lib.device_function_for(device_name_or_function)
        if entry is not None:  # the user's line and argument, for op._device_assignments
            entry.site = user_site(2)
            if entry.display_name is None:
                entry.display_name = device_display_name(device_name_or_function)
        return _StackPush(self._device_function_stack, entry)

    def colocate_with(self, op, ignore_existing=False):
        """Places ops created in the block with `op` (a Tensor, Operation or Variable)."""
        if op is not None:
            op = _colocation_root(_as_operation(self.as_graph_element(op)))
        return _Colocation(self, op, ignore_existing)

    def _attr_scope(self, attr_map):
        """Sets attrs (AttrValues or Python values; None clears one) on ops made in the block."""
        return _AttrScope(self, attr_map)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Uses the gradient registered as `map[op_type]` for ops created in the block."""
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # -- lookup ---------------------------------------------------------------------
    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Returns the Tensor or Operation that `obj` (object or name) refers to."""
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, bytes):
            obj = obj.decode("utf-8")  # TF takes names as bytes or text
        if isinstance(obj, Tensor):
            if not allow_tensor:
                raise TypeError("Can not convert a Tensor into a Operation.")
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation):
            if not allow_operation:
                raise TypeError("Can not convert a Operation into a Tensor.")
            if obj._graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, idx = obj.rpartition(":")
                try:
                    idx = int(idx)
                except ValueError:
                    raise ValueError(
                        f"The name {obj!r} looks a like a Tensor name, but is not a valid one. "
                        "Tensor names must be of the form \"<op_name>:<output_index>\".") from None
                if op_name not in self._ops_by_name:
                    raise KeyError(
                        f"The name {obj!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, does not exist in the graph.")
                op = self._ops_by_name[op_name]
                if idx >= len(op._outputs) or idx < 0:
                    raise KeyError(
                        f"The name {obj!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, exists but only has {len(op._outputs)} "
                        "outputs.")
                return op._outputs[idx]
            if ":" in obj:
                raise ValueError(f"Name {obj!r} appears to refer to a Tensor, not a Operation.")
            if obj not in self._ops_by_name:
                if allow_operation:
                    raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.")
            if not allow_operation:
                raise ValueError(
                    f"The name {obj!r} appears to refer to an Operation, not a Tensor. Tensor "
                    "names must be of the form \"<op_name>:<output_index>\".")
            return self._ops_by_name[obj]
        types = "Tensor or Operation" if allow_tensor and allow_operation else (
            "Tensor" if allow_tensor else "Operation")
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types}.")

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def get_operations(self):
        return list(self._ops)

    def _get_operation_by_name_unsafe(self, name):
        return self._ops_by_name[name]

    def __contains__(self, name):
        return name in self._ops_by_name

    # -- collections --------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        regex = re.compile(scope)
        return [i for i in items if hasattr(i, "name") and regex.match(i.name)]

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if isinstance(v, list)]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    # -- feeding --------------------------------------------------------------------------
    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    # -- export ---------------------------------------------------------------------------
    def as_graph_def(self, from_version=None, add_shapes=False):
        from flowloom.framework.graph_def import graph_to_graph_def

        return graph_to_graph_def(self, add_shapes=add_shapes)

    @property
    def graph_def_versions(self):
        from flowloom.framework.graph_def import versions_def

        return versions_def(self)

    def __repr__(self):
        return f"<flowloom.Graph object at {id(self):#x}>"


def _as_operation(x):
    return x._op if isinstance(x, Tensor) else x


def _colocation_root(op):
    """The op that `op` is itself colocated with (a variable's Assign → the variable)."""
    cls = op._attrs.get("_class")
    if cls:
        target = cls[0]
        target = target.decode() if isinstance(target, bytes) else target
        if target.startswith("loc:@"):
            root = op._graph._ops_by_name.get(target[5:])
            if root is not None:
                return root
    return op


def _group_names(op):
    """`op.colocation_groups()` as str (the `_class` attr a colocated op gets)."""
    cls = op._attrs.get("_class")
    if cls:
        return [c.decode() if isinstance(c, bytes) else c for c in cls]
    return ("loc:@" + op._name,)


def _set_shapes(op, opdef):
    try:
        shapes = opdef.shape_fn(op)
    except ValueError as e:
        raise ValueError(shape_error_message(op, str(e))) from None
    except errors.OpError as e:
        raise type(e)(None, op, shape_error_message(op, e.message)) from None
    if shapes is None:
        return
    if type(shapes) is TensorShape:
        op._outputs[0]._shape = interned(shapes)
        return
    if not isinstance(shapes, (list, tuple)) or (
            shapes and not isinstance(shapes[0], (TensorShape, list, tuple, type(None)))):
        shapes = [shapes]
    for t, s in zip(op._outputs, shapes):
        if s is not None:
            t._shape = interned(as_shape(s))


def shape_error_message(op, message):
    """TF 1.15's wording of a shape-function error: the op's name and type, and the shapes
    of its inputs (`... for 'add' (op: 'AddV2') with input shapes: [1,2,3], [4,5,6].`)."""
    def fmt(s):
        return "?" if s.ndims is None else "[%s]" % ",".join(
            "?" if d is None else str(d) for d in s.as_list())

    shapes = ", ".join(fmt(t._shape) for t in op._inputs)
    return f"{message} for '{op._name}' (op: '{op._type}') with input shapes: {shapes}."


class _ControlDependenciesController:
    """The context of one `control_dependencies` block."""

    def __init__(self, graph, control_inputs):
        self._graph = graph
        self.control_inputs = control_inputs if control_inputs is not None else []
        self._new_stack = control_inputs is None
        self.ops_created = set()

    def __enter__(self):
        g = self._graph
        if self._new_stack:
            # `control_dependencies(None)` also leaves any cond/while context, as in TF.
            self._old_stack = g._control_dependencies_stack
            g._control_dependencies_stack = []
            self._old_context = g._control_flow_context
            g._control_flow_context = None
        g._control_dependencies_stack.append(self)
        if observers.control_block:
            for observer in observers.control_block:
                observer("enter", self)
        return self

    def __exit__(self, *exc):
        g = self._graph
        if observers.control_block:
            for observer in observers.control_block:
                observer("exit", self)
        g._control_dependencies_stack.remove(self)
        if self._new_stack:
            g._control_dependencies_stack = self._old_stack
            g._control_flow_context = self._old_context
        return False


_valid_scope_names = set()  # names that passed the (stricter) root-scope check


class _NameScope:
    """The context of `Graph.name_scope` (a class: it is entered for most ops made)."""

    __slots__ = ("_graph", "_name", "_old")

    def __init__(self, graph, name):
        self._graph = graph
        self._name = name

    def __enter__(self):
        state = self._graph._thread_local
        name = self._name
        self._old = state.name_stack
        if not name:
            state.name_stack = ""
            return ""
        if name[-1] == "/":
            state.name_stack = name[:-1]
            return name
        state.name_stack = new = self._graph.unique_name(name)
        return new + "/"

    def __exit__(self, *exc):
        self._graph._thread_local.name_stack = self._old
        return False


class _Colocation:
    """The context of `Graph.colocate_with`: no device scopes inside, `op` on the stack."""

    __slots__ = ("_graph", "_op", "_ignore", "_saved", "_site")

    def __init__(self, graph, op, ignore_existing):
        self._graph, self._op, self._ignore = graph, op, ignore_existing
        self._site = user_site(2)  # the user's line, for op._colocation_dict

    def __enter__(self):
        g = self._graph
        saved_coloc = g._colocation_stack
        if self._op is None:
            self._saved = (None, saved_coloc)
            g._colocation_stack = []
            return None
        self._saved = (g._device_function_stack, saved_coloc)
        g._device_function_stack = []
        # The stack holds these contexts (the op and the user's line); a list is never
        # changed in place, so ops keep it as their snapshot.
        g._colocation_stack = ([] if self._ignore else saved_coloc) + [self]
        return None

    def __exit__(self, *exc):
        devices, coloc = self._saved
        if devices is not None:
            self._graph._device_function_stack = devices
        self._graph._colocation_stack = coloc
        return False


class _AttrScope:
    """The context of `Graph._attr_scope` (a class: each variable enters one)."""

    __slots__ = ("_graph", "_map", "_saved")

    def __init__(self, graph, attr_map):
        self._graph, self._map = graph, attr_map

    def __enter__(self):
        g = self._graph
        self._saved = g._attr_scope_map
        new = dict(self._saved)
        for key, value in self._map.items():  # as TF: AttrValue protos; None clears an attr
            if value is None:
                new.pop(key, None)
            elif hasattr(value, "WhichOneof"):
                from flowloom.framework.graph_def import attr_value_to_python

                new[key] = attr_value_to_python(value)
            else:
                new[key] = value
        g._attr_scope_map = new
        return None

    def __exit__(self, *exc):
        self._graph._attr_scope_map = self._saved
        return False


class _DefaultGraphController:
    """The context of `Graph.as_default` (the graph on top of this thread's stack)."""

    __slots__ = ("_stack", "_graph")

    def __init__(self, stack, graph):
        self._stack, self._graph = stack, graph

    def __enter__(self):
        self._stack.append(self._graph)
        return self._graph

    def __exit__(self, *exc):
        stack, graph = self._stack, self._graph
        if stack and stack[-1] is graph:
            stack.pop()
        elif graph in stack:
            stack.remove(graph)
        return False


class _ThreadState(threading.local):
    name_stack = ""  # each thread starts at the root name scope
    control_flow_context = None  # and outside any cond/while_loop
    variable_creator_stack = ()


class _StackPush:
    def __init__(self, stack, item):
        self._stack = stack
        self._item = item

    def __enter__(self):
        self._stack.append(self._item)

    def __exit__(self, *exc):
        if not self._stack or self._stack[-1] is not self._item:
            raise RuntimeError("Exiting device scope without proper scope nesting.")
        self._stack.pop()
        return False


class _DefaultGraphStack(threading.local):
    """The `as_default` stack and the global default graph: both per thread, as in TF (a
    thread that builds without `g.as_default()` builds into its own default graph)."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self.global_default = None

    def get_default(self):
        if self.stack:
            return self.stack[-1]
        return self.get_global_default()

    def get_global_default(self):
        if self.global_default is None:
            self.global_default = Graph()
        return self.global_default

    def get_controller(self, graph):
        return _DefaultGraphController(self.stack, graph)

    def reset(self):
        if self.stack:
            raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. "
                                 "If you need a cleared graph, exit the nesting and create a "
                                 "new graph.")
        self.global_default = None


_default_graph_stack = _DefaultGraphStack()


def get_default_graph():
    """Returns the default graph of the current thread."""
    state = _default_graph_stack
    stack = state.stack
    if stack:
        return stack[-1]
    graph = state.global_default
    return graph if graph is not None else state.get_global_default()


def reset_default_graph():
    """Clears the default graph stack and resets the global default graph."""
    from flowloom.runtime import session as session_lib

    if session_lib._default_session_stack.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new graph.")
    _default_graph_stack.reset()


# control_flow_util registers TF's check that an op may read values of the loops around it.
_input_context_checks = []


def get_name_scope():
    return get_default_graph().get_name_scope()


def _graph_of(values, default=None):
    """The graph that `values` (Tensors, Operations, Variables...) belong to, or the default.
    While a function is built (its graph is the default), that graph, as in TF: it captures
    the tensors of the graphs around it."""
    if default is None:
        default = get_default_graph()
    if default._outer_graph is not None:
        return default
    graph = None
    for v in values:
        cls = type(v)
        if cls is Tensor:
            g = v._op._graph
        elif cls in _NOT_GRAPH_ELEMENTS:
            continue  # Python values (shapes, scalars) name no graph
        elif isinstance(v, (Tensor, Operation)):
            g = v.graph
        elif hasattr(v, "graph") and hasattr(v, "_as_graph_element"):
            g = v.graph
        else:
            continue
        if g is not None:
            if graph is None:
                graph = g
            elif g is not graph:
                raise ValueError(f"{v!r} must be from the same graph as {values[0]!r}.")
    return graph or default


_NOT_GRAPH_ELEMENTS = frozenset((int, float, bool, str, bytes, list, tuple, dict, type(None)))


def control_dependencies(control_inputs):
    """`tf.control_dependencies`: the default graph's `control_dependencies`."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    """`tf.device`: sets the device of ops created in the block."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def init_scope():
    """Lifts op creation out of function graphs and control-dependency blocks (TF's
    `init_scope`; op_construction has it)."""
    if not _init_scope:
        from flowloom.framework.op_construction import init_scope as lifted

        _init_scope.append(lifted)
    return _init_scope[0]()


_init_scope = []


from flowloom.framework.name_scopes import name_scope  # noqa: E402,F401 - tf.name_scope
