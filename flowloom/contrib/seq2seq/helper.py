"""tf.contrib.seq2seq helpers: what a BasicDecoder feeds its cell at each step, and when each
sequence finishes (TrainingHelper reads given inputs; the embedding helpers feed back the
argmax or a sample of the outputs)."""

from flowloom.framework import dtypes, nest, tensor_shape
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import cond as cond_lib
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.math import math_ops
from flowloom.ops.nn import embedding_ops
from flowloom.ops.rnn.rnn import _transpose_batch_time


def _unstack_ta(inp):
    return TensorArray(dtype=inp.dtype, size=array_ops.shape(inp)[0],
                       element_shape=inp.get_shape()[1:]).unstack(inp)


class Helper:
    """The interface of decoder helpers: batch_size, sample_ids_shape/dtype, initialize(),
    sample(time, outputs, state), next_inputs(time, outputs, state, sample_ids)."""

    @property
    def batch_size(self):
        raise NotImplementedError("batch_size")

    @property
    def sample_ids_shape(self):
        raise NotImplementedError("sample_ids_shape")

    @property
    def sample_ids_dtype(self):
        raise NotImplementedError("sample_ids_dtype")

    def initialize(self, name=None):
        raise NotImplementedError("initialize")

    def sample(self, time, outputs, state, name=None):
        raise NotImplementedError("sample")

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        raise NotImplementedError("next_inputs")


class CustomHelper(Helper):
    """A helper from three callables: initialize_fn() -> (finished, inputs),
    sample_fn(time, outputs, state) -> sample_ids, next_inputs_fn(time, outputs, state,
    sample_ids) -> (finished, next_inputs, next_state)."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None,
                 sample_ids_dtype=None):
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = tensor_shape.TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or dtypes.int32

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        with name_scope(name, "%sInitialize" % type(self).__name__):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = array_ops.size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "%sSample" % type(self).__name__, (time, outputs, state)):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, "%sNextInputs" % type(self).__name__, (time, outputs, state)):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state,
                                        sample_ids=sample_ids)


class TrainingHelper(Helper):
    """Reads the decoder's inputs from `inputs` ([batch, time, ...], or time-major), one step
    per time; sequence b finishes after `sequence_length[b]` steps. Sample ids are the argmax
    of the outputs.

    Raises:
      ValueError: `sequence_length` is not a vector.
    """

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with name_scope(name, "TrainingHelper", [inputs, sequence_length]):
            inputs = convert_to_tensor(inputs, name="inputs")
            self._inputs = inputs
            if not time_major:
                inputs = nest.map_structure(_transpose_batch_time, inputs)
            self._input_tas = nest.map_structure(_unstack_ta, inputs)
            self._sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.get_shape().ndims != 1:
                raise ValueError("Expected sequence_length to be a vector, but received "
                                 "shape: %s" % self._sequence_length.get_shape())
            self._zero_inputs = nest.map_structure(
                lambda inp: array_ops.zeros_like(inp[0, :]), inputs)
            self._batch_size = array_ops.size(sequence_length)

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return tensor_shape.TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def initialize(self, name=None):
        with name_scope(name, "TrainingHelperInitialize"):
            finished = math_ops.equal(0, self._sequence_length)
            all_finished = math_ops.reduce_all(finished)
            next_inputs = cond_lib.cond(
                all_finished, lambda: self._zero_inputs,
                lambda: nest.map_structure(lambda inp: inp.read(0), self._input_tas))
            return finished, next_inputs

    def sample(self, time, outputs, name=None, **unused_kwargs):
        with name_scope(name, "TrainingHelperSample", [time, outputs]):
            return math_ops.cast(math_ops.argmax(outputs, axis=-1), dtypes.int32)

    def next_inputs(self, time, outputs, state, name=None, **unused_kwargs):
        with name_scope(name, "TrainingHelperNextInputs", [time, outputs, state]):
            next_time = time + 1
            finished = next_time >= self._sequence_length
            all_finished = math_ops.reduce_all(finished)
            next_inputs = cond_lib.cond(
                all_finished, lambda: self._zero_inputs,
                lambda: nest.map_structure(lambda inp: inp.read(next_time), self._input_tas))
            return finished, next_inputs, state


class GreedyEmbeddingHelper(Helper):
    """Feeds back the embedding of the argmax of the outputs; a sequence finishes when it
    emits `end_token`.

    Args:
      embedding: an embedding matrix, or a callable `ids -> inputs`.
      start_tokens: int32 vector [batch_size].
      end_token: int32 scalar.
    Raises:
      ValueError: start_tokens is not a vector or end_token not a scalar.
    """

    def __init__(self, embedding, start_tokens, end_token):
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: embedding_ops.embedding_lookup(embedding, ids)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32,
                                               name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = array_ops.size(start_tokens)
        if self._end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return tensor_shape.TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def initialize(self, name=None):
        finished = array_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        if not isinstance(outputs, Tensor):
            raise TypeError("Expected outputs to be a single Tensor, got: %s" % type(outputs))
        return math_ops.argmax(outputs, axis=-1, output_type=dtypes.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = math_ops.equal(sample_ids, self._end_token)
        all_finished = math_ops.reduce_all(finished)
        next_inputs = cond_lib.cond(all_finished, lambda: self._start_inputs,
                                    lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """Like GreedyEmbeddingHelper, but samples the next id from softmax(outputs /
    softmax_temperature)."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None,
                 seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        from flowloom.ops.random.random_sampling_ops import multinomial

        if not isinstance(outputs, Tensor):
            raise TypeError("Expected outputs to be a single Tensor, got: %s" % type(outputs))
        logits = outputs if self._softmax_temperature is None else \
            outputs / self._softmax_temperature
        return array_ops.reshape(multinomial(logits, 1, seed=self._seed,
                                             output_dtype=dtypes.int32), [-1])


class InferenceHelper(Helper):
    """A helper with a custom `sample_fn(outputs)`, `end_fn(sample_ids)` and optional
    `next_inputs_fn(sample_ids)` (default: the sample ids are the next inputs)."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn,
                 next_inputs_fn=None):
        self._sample_fn = sample_fn
        self._end_fn = end_fn
        self._sample_shape = tensor_shape.TensorShape(sample_shape)
        self._sample_dtype = sample_dtype
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = array_ops.shape(start_inputs)[0]
        self._start_inputs = convert_to_tensor(start_inputs, name="start_inputs")

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_dtype

    def initialize(self, name=None):
        finished = array_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        next_inputs = sample_ids if self._next_inputs_fn is None else \
            self._next_inputs_fn(sample_ids)
        return self._end_fn(sample_ids), next_inputs, state
