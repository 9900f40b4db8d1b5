"""TF1's control-flow helpers under TF's names (`tensorflow.python.ops.control_flow_util`).

flowloom builds TF1's dataflow control flow (Switch/Merge/Enter/Exit), never control flow
v2 (functional If/While ops for tf.cond/tf.while_loop), so `ENABLE_CONTROL_FLOW_V2` is False.
"""

from flowloom.ops.control_flow import control_flow_context as _cfc

ENABLE_CONTROL_FLOW_V2 = False


def EnableControlFlowV2(graph):  # noqa: N802 - TF's name
    """False: flowloom builds TF1 control flow in every graph."""
    del graph
    return False


def IsInXLAContext(op):  # noqa: N802 - TF's name
    """False: flowloom has no XLA contexts."""
    del op
    return False


IsSwitch = _cfc.is_switch
IsMerge = _cfc.is_merge
IsLoopEnter = _cfc.is_loop_enter
IsLoopExit = _cfc.is_loop_exit
IsLoopConstantEnter = _cfc.is_loop_constant_enter
IsLoopSwitch = _cfc.is_loop_switch
IsCondSwitch = _cfc.is_cond_switch
GetWhileContext = _cfc.get_while_context
GetOutputContext = _cfc.get_output_context
IsInWhileLoop = _cfc.is_in_while_loop
GetContainingWhileContext = _cfc.get_containing_while_context
IsInCond = _cfc.is_in_cond
