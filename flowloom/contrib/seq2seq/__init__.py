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
