"""`tf.nn.raw_rnn` (an RNN driven by a `loop_fn`) and `tf.nn.static_state_saving_rnn` (a
`static_rnn` whose state is read from and saved to a state saver), as TF1 builds them."""

from flowloom.framework import dtypes, nest, tensor_shape
from flowloom.framework.graph import colocate_with, control_dependencies
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.rnn.rnn_cell_impl import _concat, assert_like_rnncell
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.control_flow.while_loop import while_loop
from flowloom.variable_scope import variable_scope


def _static_size(size):
    """A TensorShape for an emit size given as a shape, an int list or a shape tensor."""
    from flowloom.framework import tensor_util
    from flowloom.framework.ops import Tensor

    if isinstance(size, Tensor):
        value = tensor_util.constant_value(size)
        return tensor_shape.unknown_shape() if value is None else tensor_shape.as_shape(value)
    return tensor_shape.as_shape(size)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """An RNN whose inputs, emitted outputs and stopping are decided by `loop_fn`.

    `loop_fn(time, cell_output, cell_state, loop_state)` returns `(finished, next_input,
    next_cell_state, emit_output, next_loop_state)`; it is called once with `cell_output`
    None (time 0: its `next_cell_state` is the initial state, its `emit_output` the structure
    of what is emitted, or None for `cell.output_size`), then after each cell step. Entries
    that are finished emit zeros and keep their state.

    Args:
      cell: an RNNCell.
      loop_fn: the callable above.
      parallel_iterations: of the while loop (default 32).
      swap_memory: passed to the while loop.
      scope: variable scope (default "rnn").

    Returns:
      `(emit_ta, final_state, final_loop_state)`: TensorArrays (in the structure of the
      emitted outputs) of one `[batch, ...]` entry per step, the final cell state, and the
      final loop state (None if `loop_fn` never gave one).

    Raises:
      TypeError: `cell` is not an RNNCell or `loop_fn` is not callable.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    parallel_iterations = parallel_iterations or 32
    with variable_scope(scope or "rnn"):
        time = array_ops.constant(0, dtype=dtypes.int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)  # (time, cell_output, cell_state, loop_state)
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else \
            array_ops.constant(0, dtype=dtypes.int32)
        static_batch = tensor_shape.Dimension(None)
        for x in flat_input:
            shape = x.get_shape()
            static_batch = static_batch.merge_with(shape[0] if shape.ndims else None)
        const_batch = static_batch.value
        batch_size = const_batch if const_batch is not None else \
            array_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        state = nest.pack_sequence_as(initial_state, flat_state)
        if emit_structure is not None:
            flat_emit = nest.flatten(emit_structure)
            emit_sizes = [e.shape if e.shape.is_fully_defined() else array_ops.shape(e)
                          for e in flat_emit]
            emit_dtypes = [e.dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            emit_sizes = nest.flatten(emit_structure)
            emit_dtypes = [flat_state[0].dtype] * len(emit_sizes)
        emit_ta = nest.pack_sequence_as(emit_structure, [
            TensorArray(dtype=dt, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                        element_shape=tensor_shape.TensorShape([const_batch]).concatenate(
                            _static_size(size)))
            for i, (dt, size) in enumerate(zip(emit_dtypes, emit_sizes))])
        zero_emit = nest.pack_sequence_as(emit_structure, [
            array_ops.zeros(_concat(batch_size, size), dt)
            for size, dt in zip(emit_sizes, emit_dtypes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            if next_loop_state is not None:
                loop_state = next_loop_state

            def keep_finished(current, candidate):
                # Finished entries keep `current`; TensorArrays and scalars pass through.
                def pick(cur, cand):
                    if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
                        return cand
                    with colocate_with(cand):
                        return array_ops.where(elements_finished, cur, cand)
                return nest.map_structure(pick, current, candidate)

            emit_output = keep_finished(zero_emit, emit_output)
            next_state = keep_finished(state, next_state)
            emit_ta = nest.map_structure(lambda ta, e: ta.write(time, e), emit_ta, emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = while_loop(condition, body,
                              [time, finished, next_input, emit_ta, state, loop_state],
                              parallel_iterations=parallel_iterations,
                              swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """`static_rnn` whose initial state is `state_saver.state(name)` and whose final state
    is saved with `state_saver.save_state(name, state)` before the last output is available.

    Args:
      cell: an RNNCell.
      inputs: a list of `[batch, input_size]` tensors.
      state_saver: an object with `state(name)` and `save_state(name, value)`.
      state_name: a name, or names in the structure of `cell.state_size`.
      sequence_length, scope: as in `static_rnn`.

    Returns:
      `(outputs, state)` as `static_rnn` returns them.

    Raises:
      ValueError: `state_name` does not have the structure of `cell.state_size`.
    """
    from flowloom.ops.rnn.rnn import static_rnn

    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    if state_is_tuple != nest.is_nested(state_name):
        raise ValueError("state_name should be the same type as cell.state_size.  "
                         f"state_name: {state_name}, cell.state_size: {state_size}")
    if state_is_tuple:
        names = nest.flatten(state_name)
        if len(names) != len(nest.flatten(state_size)):
            raise ValueError(f"#elems(state_name) != #elems(state_size): {len(names)} vs. "
                             f"{len(nest.flatten(state_size))}")
        initial_state = nest.pack_sequence_as(state_size,
                                              [state_saver.state(n) for n in names])
    else:
        names = [state_name]
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    flat_state = nest.flatten(state)
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flat_state)]
    with control_dependencies(saves):
        last = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(
            last, [array_ops.identity(o) for o in nest.flatten(last)])
        state = nest.pack_sequence_as(state, [array_ops.identity(s) for s in flat_state])
    return outputs, state
