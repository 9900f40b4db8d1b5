"""tf.contrib.seq2seq.BasicDecoder: an RNN cell, a helper and an optional output layer."""

import collections

from flowloom.framework import nest, tensor_shape
from flowloom.framework.graph import name_scope
from flowloom.layers.base import Layer
from flowloom.contrib.seq2seq import helper as helper_py
from flowloom.contrib.seq2seq.decoder import Decoder
from flowloom.ops.rnn.rnn_cell_impl import assert_like_rnncell


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    pass


class BasicDecoder(Decoder):
    """Steps `cell` on the helper's inputs, applying `output_layer` to its outputs.

    Args:
      cell: an RNNCell.
      helper: a Helper (TrainingHelper, GreedyEmbeddingHelper, ...).
      initial_state: the cell's initial state.
      output_layer: optional tf.layers.Layer (e.g. Dense) applied to the cell outputs.
    Raises:
      TypeError: cell, helper or output_layer of the wrong type.
    """

    def __init__(self, cell, helper, initial_state, output_layer=None):
        assert_like_rnncell("cell", cell)
        if not isinstance(helper, helper_py.Helper):
            raise TypeError("helper must be a Helper, received: %s" % type(helper))
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError("output_layer must be a Layer, received: %s" % type(output_layer))
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        units = getattr(self._output_layer, "units", None)
        if units is None:
            raise NotImplementedError("BasicDecoder with an output layer other than Dense")
        return nest.map_structure(lambda _: tensor_shape.TensorShape([units]), size)

    @property
    def output_size(self):
        return BasicDecoderOutput(rnn_output=self._rnn_output_size(),
                                  sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(nest.map_structure(lambda _: dtype, self._rnn_output_size()),
                                  self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BasicDecoderStep", (time, inputs, state)):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished
