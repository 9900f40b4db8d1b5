"""Control-flow contexts in a MetaGraphDef: CondContextDef / WhileContextDef (TF's
control_flow.proto), in the "cond_context" and "while_context" collections.

Exporting them lets TF (and flowloom) rebuild the contexts on import, so that `tf.gradients`
works through the conds and loops of an imported meta graph, as in TF.
"""

from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.graph_def import prepend_name_scope, strip_name_scope
from flowloom.framework.meta_graph import register_proto_function
from flowloom.ops.control_flow.control_flow_context import (
    CondContext,
    ControlFlowContext,
    WhileContext,
)
from flowloom.proto import control_flow_pb2


def values_def(ctx, export_scope=None):
    """`ctx`'s values and external values as a ValuesDef, without `export_scope`."""
    values_def = control_flow_pb2.ValuesDef()
    values_def.values.extend(strip_name_scope(v, export_scope) for v in sorted(ctx._values))
    for k, v in ctx._external_values.items():
        values_def.external_values[strip_name_scope(k, export_scope)] = \
            strip_name_scope(v.name, export_scope)
    return values_def


def _names(tensors, export_scope):
    return [strip_name_scope(t.name, export_scope) for t in tensors]


def to_proto(ctx, export_scope=None):
    """A CondContextDef or WhileContextDef for `ctx` (None if outside `export_scope`)."""
    if export_scope and not ctx.name.startswith(export_scope):
        return None
    if isinstance(ctx, CondContext):
        proto = control_flow_pb2.CondContextDef(
            context_name=strip_name_scope(ctx.name, export_scope),
            pred_name=strip_name_scope(ctx.pred.name, export_scope),
            pivot_name=strip_name_scope(ctx.pivot.name, export_scope), branch=ctx.branch)
    else:
        proto = control_flow_pb2.WhileContextDef(
            context_name=strip_name_scope(ctx.name, export_scope),
            parallel_iterations=ctx.parallel_iterations, back_prop=ctx.back_prop,
            swap_memory=ctx.swap_memory,
            pivot_name=strip_name_scope(ctx.pivot.name, export_scope),
            pivot_for_pred_name=strip_name_scope(ctx._pivot_for_pred.name, export_scope),
            pivot_for_body_name=strip_name_scope(ctx._pivot_for_body.name, export_scope))
        if ctx.maximum_iterations is not None:
            proto.maximum_iterations_name = strip_name_scope(ctx.maximum_iterations.name,
                                                             export_scope)
        proto.loop_exit_names.extend(_names(ctx.loop_exits, export_scope))
        proto.loop_enter_names.extend(_names(ctx.loop_enters, export_scope))
    proto.values_def.MergeFrom(values_def(ctx, export_scope))
    for nested in ctx._nested_contexts:
        nested_def = proto.nested_contexts.add()
        field = nested_def.cond_ctxt if isinstance(nested, CondContext) else \
            nested_def.while_ctxt
        field.CopyFrom(to_proto(nested, export_scope))
    return proto


def init_values(ctx, values_def, import_scope=None):
    """Gives `ctx` the values of `values_def` (prefixed with `import_scope`); the ops whose
    outputs it holds (not those it reaches from outside) join the context."""
    graph = get_default_graph()
    ctx._values = {prepend_name_scope(v, import_scope) for v in values_def.values}
    ctx._external_values = {
        prepend_name_scope(k, import_scope):
            graph.as_graph_element(prepend_name_scope(v, import_scope))
        for k, v in values_def.external_values.items()}
    op_names = {v.split(":")[0] for v in ctx._values - set(ctx._external_values)}
    for name in sorted(op_names):
        graph.as_graph_element(name)._set_control_flow_context(ctx)


def _init_common(ctx, values_def, import_scope):
    ControlFlowContext.__init__(ctx, values_def, import_scope)
    if not values_def.values and not values_def.external_values:
        init_values(ctx, values_def, import_scope)  # an empty ValuesDef is still one


def _nested_from_proto(ctx, nested_defs, import_scope):
    ctx.Enter()
    for nested_def in nested_defs:
        which = nested_def.WhichOneof("ctxt")
        if which == "cond_ctxt":
            cond_from_proto(nested_def.cond_ctxt, import_scope)
        elif which == "while_ctxt":
            while_from_proto(nested_def.while_ctxt, import_scope)
    ctx.Exit()


def cond_from_proto(proto, import_scope=None):
    """The CondContext a CondContextDef describes, in the default graph."""
    graph = get_default_graph()
    ctx = CondContext.__new__(CondContext)
    ctx._name = prepend_name_scope(proto.context_name, import_scope)
    ctx._pred = graph.as_graph_element(prepend_name_scope(proto.pred_name, import_scope))
    ctx._pivot = graph.as_graph_element(prepend_name_scope(proto.pivot_name, import_scope))
    ctx._branch = proto.branch
    _init_common(ctx, proto.values_def, import_scope)
    _nested_from_proto(ctx, proto.nested_contexts, import_scope)
    return ctx


def while_from_proto(proto, import_scope=None):
    """The WhileContext a WhileContextDef describes, in the default graph."""
    graph = get_default_graph()

    def element(name):
        return graph.as_graph_element(prepend_name_scope(name, import_scope))

    ctx = WhileContext.__new__(WhileContext)
    ctx._name = prepend_name_scope(proto.context_name, import_scope)
    ctx._graph = graph
    ctx._maximum_iterations = element(proto.maximum_iterations_name) \
        if proto.maximum_iterations_name else None
    ctx._parallel_iterations = proto.parallel_iterations
    ctx._back_prop = proto.back_prop
    ctx._swap_memory = proto.swap_memory
    ctx._pivot_for_pred = element(proto.pivot_for_pred_name)
    ctx._pivot_for_body = element(proto.pivot_for_body_name)
    ctx._pivot = element(proto.pivot_name)
    ctx._loop_exits = [element(n) for n in proto.loop_exit_names]
    ctx._loop_enters = [element(n) for n in proto.loop_enter_names]
    ctx._grad_state = None
    _init_common(ctx, proto.values_def, import_scope)
    if import_scope:
        # The frame is the context's name, which the import scope changed (as TF).
        for name in ctx._values:
            op = graph.as_graph_element(name)._op
            if op._type in ("Enter", "RefEnter"):
                op._set_attr("frame_name", ctx._name)
    _nested_from_proto(ctx, proto.nested_contexts, import_scope)
    return ctx


register_proto_function(
    GraphKeys.COND_CONTEXT, to_proto,
    lambda raw, scope: cond_from_proto(control_flow_pb2.CondContextDef.FromString(raw), scope))
register_proto_function(
    GraphKeys.WHILE_CONTEXT, to_proto,
    lambda raw, scope: while_from_proto(control_flow_pb2.WhileContextDef.FromString(raw), scope))
