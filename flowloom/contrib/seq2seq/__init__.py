"""`tf.contrib.seq2seq`: sequence_loss, decoders and helpers, dynamic_decode, attention."""

from flowloom.contrib.seq2seq.basic_decoder import BasicDecoder, BasicDecoderOutput  # noqa: F401
from flowloom.contrib.seq2seq.decoder import Decoder, dynamic_decode  # noqa: F401
from flowloom.contrib.seq2seq.helper import (CustomHelper, GreedyEmbeddingHelper,  # noqa: F401
                                             Helper, InferenceHelper, SampleEmbeddingHelper,
                                             TrainingHelper)
from flowloom.contrib.seq2seq.loss import sequence_loss  # noqa: F401
from flowloom.contrib.seq2seq.attention_wrapper import (  # noqa: F401
    AttentionMechanism, AttentionWrapper, AttentionWrapperState, BahdanauAttention,
    LuongAttention, hardmax)
from flowloom.contrib.seq2seq.beam_search_decoder import (  # noqa: F401
    BeamSearchDecoder, BeamSearchDecoderOutput, BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput, gather_tree_from_array, tile_batch)
from flowloom.ops.rnn.beam_search_ops import gather_tree  # noqa: F401
