"""RNN drivers: `tf.nn.dynamic_rnn`, `bidirectional_dynamic_rnn`, `static_rnn`,
`static_bidirectional_rnn`, built as TF1 builds them.

`dynamic_rnn` is a `tf.while_loop` over time (`rnn/while/...`): the inputs are unstacked into
a TensorArray, each iteration reads step `time`, calls the cell and writes the output into
another TensorArray, which is stacked after the loop. With `sequence_length`, entries past
their length get a zero output and carry their state through unchanged (Select ops).
"""

from flowloom.framework import dtypes, nest, tensor_shape, tensor_util
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.rnn.rnn_cell_impl import _concat, assert_like_rnncell
from flowloom.ops.array.sequence_ops import reverse_sequence
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.control_flow.while_loop import while_loop
from flowloom.variable_scope import variable_scope


def _transpose_batch_time(x):
    """Swaps the first two dimensions of `x`, keeping its static shape."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(
        x, array_ops.concat(([1, 0], math_ops.range_(2, x_rank)), axis=0))
    if static.ndims is not None:
        x_t.set_shape(tensor_shape.TensorShape([static[1].value, static[0].value])
                      .concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={input_} "
                             f"of rank {shape.ndims}")
        if shape[1].value is not None:
            return shape[1].value
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        inferred = [e.dtype for e in nest.flatten(state)]
        if not inferred:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError(f"Argument state={state} has tensors of different inferred "
                             "dtypes. Unable to infer a single representative dtype. Dtypes "
                             f"received: {inferred}")
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape):
    if isinstance(shape, Tensor):
        return tensor_shape.as_shape(tensor_util.constant_value(shape))
    return shape


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output,
              state, call_cell, state_size, skip_conditionals=False):
    """One step with `sequence_length`: entries with `time >= length` get `zero_output` and
    keep `state`. Without `skip_conditionals` (static_rnn), tf.cond skips the cell when every
    sequence has ended and the masking when none has."""
    from flowloom.ops.control_flow.cond import cond

    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, TensorArray) or output.shape.ndims == 0:
            return new_output
        return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(z, n) for z, n in zip(flat_zero_output, flat_new_output)] +
                [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def maybe_copy_some_through():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        flat_new_state = nest.flatten(new_state)
        flat_new_output = nest.flatten(new_output)
        return cond(time < min_sequence_length,
                    lambda: flat_new_output + flat_new_state,
                    lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        final = copy_some_through(nest.flatten(new_output), nest.flatten(new_state))
    else:
        final = cond(time >= max_sequence_length, lambda: flat_zero_output + flat_state,
                     maybe_copy_some_through)
    final_output = final[:len(flat_zero_output)]
    final_state = final[len(flat_zero_output):]
    for output, flat_output in zip(final_output, flat_zero_output):
        output.set_shape(flat_output.shape)
    for substate, flat_substate in zip(final_state, flat_state):
        if not isinstance(substate, TensorArray):
            substate.set_shape(flat_substate.shape)
    return (nest.pack_sequence_as(zero_output, final_output),
            nest.pack_sequence_as(state, final_state))


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be "
                         "specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs `cell` over the time steps of `inputs` in a `tf.while_loop`.

    Args:
      cell: an RNNCell.
      inputs: a `[batch, time, ...]` tensor (`[time, batch, ...]` if `time_major`), or a
        nested tuple of them.
      sequence_length: optional int32/int64 `[batch]` lengths: outputs past a length are
        zero and the state past it is copied through.
      initial_state: the initial state (default: `cell.zero_state(batch, dtype)`).
      dtype: the state's dtype, required without `initial_state`.
      parallel_iterations: iterations that may run at once (default 32).
      swap_memory: accepted (memory is not swapped).
      time_major: the layout of `inputs` and outputs.
      scope: the variable scope (default "rnn").

    Returns:
      `(outputs, state)`: outputs shaped like the inputs with the cell's output size last;
      the final state.

    Raises:
      TypeError: `cell` is not an RNNCell.
      ValueError: no `initial_state` and no `dtype`; inputs of unknown depth or
        inconsistent time/batch sizes; `sequence_length` not a vector.
    """
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(i) for i in flat_input]
            flat_input = tuple(_transpose_batch_time(i) for i in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("Argument sequence_length must be a vector of length "
                                 f"batch_size. Received sequence_length={sequence_length} of "
                                 f"shape: {sequence_length.shape}")
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            with control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, sequence_length=sequence_length, dtype=dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _assert_has_shape(x, shape):
    from flowloom.ops.checks.logging_ops import Assert_

    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    return Assert_(math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
                   [f"Expected shape for Tensor {x.name} is ", packed_shape,
                    " but saw shape: ", x_shape])


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory,
                      sequence_length=None, dtype=None):
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(i.shape.with_rank_at_least(3) for i in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for i, shape in enumerate(inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             f"inference, but saw value None for input={flat_input[i]}.")
        if const_time_steps != shape[0].value:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             f"in a batch. Received time steps={shape[0].value} for input="
                             f"{flat_input[i]}.")
        if const_batch_size != shape[1].value:
            raise ValueError("Batch_size is not the same for all the elements in the input. "
                             f"Received batch size={shape[1].value} for input="
                             f"{flat_input[i]}.")

    def create_zero_arrays(size):
        size = _concat(batch_size, size)
        return array_ops.zeros(array_ops.stack(size), _infer_state_dtype(dtype, state))

    flat_zero_output = tuple(create_zero_arrays(o) for o in flat_output_size)
    zero_output = nest.pack_sequence_as(cell.output_size, flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = array_ops.constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as scope:
        base_name = scope

    def create_ta(name, element_shape, dtype):
        return TensorArray(dtype=dtype, size=time_steps, element_shape=element_shape,
                           tensor_array_name=base_name + name)

    output_ta = tuple(
        create_ta(f"output_{i}",
                  element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(
                      _maybe_tensor_shape_from_tensor(out_size)),
                  dtype=_infer_state_dtype(dtype, state))
        for i, out_size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", element_shape=x.shape[1:], dtype=x.dtype)
                     for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(
                time=time, sequence_length=sequence_length,
                min_sequence_length=min_sequence_length,
                max_sequence_length=max_sequence_length, zero_output=zero_output,
                state=state, call_cell=call_cell, state_size=cell.state_size,
                skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], output_size,
                                 static=True))
    final_outputs = nest.pack_sequence_as(cell.output_size, final_outputs)
    return final_outputs, final_state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """A forward and a backward `dynamic_rnn` over `inputs` (scopes `bidirectional_rnn/fw`
    and `/bw`); the backward one reads each sequence reversed up to its length.

    Args:
      cell_fw, cell_bw: the RNNCells of the two directions.
      inputs: as for `dynamic_rnn`.
      sequence_length: optional `[batch]` lengths (reverse_sequence uses them; without
        them the whole time axis is reversed).
      initial_state_fw, initial_state_bw: optional initial states.
      dtype, parallel_iterations, swap_memory, time_major: as for `dynamic_rnn`.
      scope: the variable scope (default "bidirectional_rnn").

    Returns:
      `((output_fw, output_bw), (output_state_fw, output_state_bw))`, `output_bw` in the
      original time order.

    Raises:
      TypeError: a cell is not an RNNCell.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def reverse(input_, seq_lengths):
            if seq_lengths is not None:
                return reverse_sequence(input=input_, seq_lengths=seq_lengths,
                                        seq_axis=time_axis, batch_axis=batch_axis)
            return array_ops.reverse(input_, axis=[time_axis])

        with variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(lambda x: reverse(x, sequence_length), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = reverse(tmp, sequence_length)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """Runs `cell` over a Python list of inputs, unrolled in the graph.

    Args:
      cell: an RNNCell.
      inputs: a list of `[batch, input_size]` tensors (or nested tuples of them).
      initial_state: the initial state (default: zeros of `dtype`).
      dtype: the state's dtype, required without `initial_state`.
      sequence_length: optional `[batch]` lengths (tf.cond skips finished steps).
      scope: the variable scope (default "rnn").

    Returns:
      `(outputs, state)`: the list of outputs and the final state.

    Raises:
      TypeError: `cell` is not an RNNCell or `inputs` is not a sequence.
      ValueError: `inputs` is empty, or an input depth is unknown.
    """
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"inputs must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            input_shape = first_input.shape.with_rank_at_least(2)
            fixed_batch_size = input_shape[0]
            for flat_input in nest.flatten(inputs):
                input_shape = flat_input.shape.with_rank_at_least(2)
                fixed_batch_size.assert_is_compatible_with(input_shape[0])
                for i, size in enumerate(input_shape[1:].dims):
                    if size.value is None:
                        raise ValueError(f"Input size (dimension {i} of input {flat_input}) "
                                         "must be accessible via shape inference, but saw "
                                         "value None.")
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1)[0]
        if fixed_batch_size.value:
            batch_size = fixed_batch_size.value
        else:
            batch_size = array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("Argument `sequence_length` must be a vector of length "
                                 f"{batch_size}. Received sequence_length={sequence_length}.")

            def create_zero_output(output_size):
                size = _concat(batch_size, output_size)
                output = array_ops.zeros(array_ops.stack(size),
                                         _infer_state_dtype(dtype, state))
                output.set_shape(tensor_shape.TensorShape(
                    _concat(fixed_batch_size.value, output_size, static=True)))
                return output

            output_size = cell.output_size
            zero_output = nest.pack_sequence_as(
                output_size, tuple(create_zero_output(s) for s in nest.flatten(output_size)))
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(
                    time=time, sequence_length=sequence_length,
                    min_sequence_length=min_sequence_length,
                    max_sequence_length=max_sequence_length, zero_output=zero_output,
                    state=state, call_cell=call_cell, state_size=cell.state_size)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _reverse_seq(input_seq, lengths):
    """Reverses a list of tensors in time, each batch entry up to its length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(x) for x in input_seq)
    flat_results = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = tensor_shape.unknown_shape(rank=sequence[0].shape.ndims)
        for input_ in sequence:
            input_shape.assert_is_compatible_with(input_.shape)
            input_.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = reverse_sequence(s_joined, lengths, 0, 1)
        for r, flat_result in zip(array_ops.unstack(s_reversed), flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(x, r) for x, r in zip(input_seq, flat_results)]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """Forward and backward `static_rnn`s; outputs concatenated along depth.

    Returns:
      `(outputs, output_state_fw, output_state_bw)`: outputs a list of
      `[batch, fw_size + bw_size]` tensors.

    Raises:
      TypeError: a cell is not an RNNCell or `inputs` is not a sequence.
      ValueError: `inputs` is empty.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                                    sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw,
                                              dtype, sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1) for fw, bw in
                         zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(output_fw, flat_outputs), output_state_fw, output_state_bw


from flowloom.ops.rnn.raw_rnn import raw_rnn, static_state_saving_rnn  # noqa: E402,F401
