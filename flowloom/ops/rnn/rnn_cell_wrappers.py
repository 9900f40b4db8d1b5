"""RNN cell wrappers (`DropoutWrapper`, `ResidualWrapper`, `DeviceWrapper`): cells around a
cell. A wrapper calls the wrapped cell directly, so it adds no variable scope of its own
(variables stay `rnn/basic_lstm_cell/...`)."""

import hashlib
import numbers

from flowloom.framework import nest, tensor_shape, tensor_util
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.rnn.rnn_cell_impl import LSTMStateTuple, RNNCell, assert_like_rnncell


class _RNNCellWrapper(RNNCell):
    """A cell around another cell: calls it directly (no scope of its own)."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def _checkpoint_dependencies(self):
        from flowloom.ops.rnn.rnn_cell_config import TrackableReference

        return [TrackableReference("cell", self.cell)]

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__,
                                       scope=scope)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def trainable_weights(self):
        return self.cell.trainable_weights

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        return self.cell.non_trainable_weights

    @property
    def weights(self):
        return self.cell.weights

    variables = weights

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


def _default_dropout_state_filter_visitor(substate):
    from flowloom.ops.control_flow.tensor_array_ops import TensorArray

    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)  # the memory state is never dropped
    return not isinstance(substate, TensorArray)  # nor TensorArrays


def _enumerated_map_structure_up_to(shallow_structure, map_fn, *args):
    ix = [0]

    def enumerated_fn(*inner_args):
        r = map_fn(ix[0], *inner_args)
        ix[0] += 1
        return r

    return nest.map_structure_up_to(shallow_structure, enumerated_fn, *args)


def _traverse_shallow_structure(trav_fn, structure):
    """TF's nest.get_traverse_shallow_structure: which parts of `structure` to visit."""
    to_traverse = trav_fn(structure)
    if not nest.is_nested(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(f"traverse_fn returned structure: {to_traverse} for "
                            f"non-structure: {structure}")
        return to_traverse
    level = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        for branch in nest._children(structure):
            level.append(_traverse_shallow_structure(trav_fn, branch))
    else:
        nest.assert_same_structure(to_traverse, structure, check_types=False)
        for t, branch in zip(nest._children(to_traverse), nest._children(structure)):
            if not isinstance(t, bool):
                raise TypeError("traverse_fn didn't return a depth=1 structure of bools.")
            level.append(_traverse_shallow_structure(trav_fn, branch) if t else False)
    return nest._rebuild(structure, level)


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and (except LSTM `c`) states.

    Args:
      cell: the wrapped RNNCell.
      input_keep_prob, output_keep_prob, state_keep_prob: keep probabilities (floats or
        scalar tensors); a constant 1 adds no dropout op.
      variational_recurrent: one dropout mask per run call, shared by all time steps
        (needs `dtype`, and `input_size` when inputs are dropped).
      input_size: the depth(s) of the inputs (variational dropout).
      dtype: the dtype of the inputs, states and outputs (variational dropout).
      seed: the op seed; each dropout op gets a seed derived from it as TF derives it.
      dropout_state_filter_visitor: which state parts to drop (default: all but LSTM `c`).

    Raises:
      TypeError: `cell` is not an RNNCell or the filter is not callable.
      ValueError: a keep probability is outside [0, 1].
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable. Received: "
                            f"{dropout_state_filter_visitor}")
        self._dropout_state_filter = (dropout_state_filter_visitor or
                                      _default_dropout_state_filter_visitor)
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"),
                               (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor_prob = convert_to_tensor(prob)
                const_prob = tensor_util.constant_value(tensor_prob)
                if const_prob is not None:
                    if const_prob < 0 or const_prob > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1. "
                                         f"Received {const_prob}")
                    setattr(self, "_" + attr, float(const_prob))
                else:
                    setattr(self, "_" + attr, tensor_prob)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            from flowloom.ops.random import random_ops

            def batch_noise(s, inner_seed):
                shape = array_ops.concat(([1], tensor_shape.as_shape(s).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or \
                    self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < "
                                     "1.0 or is unknown, input_size must be provided")
                self._recurrent_input_noise = _enumerated_map_structure_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)),
                    input_size)
            self._recurrent_state_noise = _enumerated_map_structure_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)),
                cell.state_size)
            self._recurrent_output_noise = _enumerated_map_structure_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)),
                cell.output_size)

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        salt = f"{salt_prefix}_{index}"
        string = (str(self._seed) + salt).encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self):
        return self.cell

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, shallow=None):
        from flowloom.ops.nn import nn_impl

        if shallow is None:
            shallow = values
        if not self._variational_recurrent:
            def dropout(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_impl.dropout(v, rate=1.0 - keep_prob,
                                           seed=self._gen_seed(salt_prefix, i))
                return v

            return _enumerated_map_structure_up_to(shallow, dropout, shallow, values)

        def variational(i, do_dropout, v, n):
            if not isinstance(do_dropout, bool) or do_dropout:
                ret = math_ops.divide(v, keep_prob) * math_ops.floor(keep_prob + n)
                ret.set_shape(v.shape)
                return ret
            return v

        return _enumerated_map_structure_up_to(shallow, variational, shallow, values,
                                               recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise,
                                   self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = _traverse_shallow_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise,
                                      self._state_keep_prob, shallow)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise,
                                   self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_RNNCellWrapper):
    """Adds the cell's inputs to its outputs (`residual_fn(inputs, outputs)`, default +).

    Args:
      cell: the wrapped RNNCell.
      residual_fn: `(inputs, outputs) -> outputs` (default: element-wise sum).
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def assert_shape_match(inp, out):
            inp.shape.assert_is_compatible_with(out.shape)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(assert_shape_match, inputs, outputs)
            return nest.map_structure(lambda inp, out: inp + out, inputs, outputs)

        res_outputs = (self._residual_fn or default_residual_fn)(inputs, outputs)
        return res_outputs, new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs the wrapped cell's ops on `device`."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        from flowloom.framework.graph import device

        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        from flowloom.framework.graph import device

        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
