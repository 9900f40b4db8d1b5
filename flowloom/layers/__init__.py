"""`tf.layers`: TF1's layers, with TF's variable and op names."""

from flowloom.layers.base import Layer  # noqa: F401
from flowloom.layers.convolutional import (AveragePooling2D, Conv2D, MaxPooling2D,  # noqa: F401
                                           average_pooling2d, conv2d, max_pooling2d)
from flowloom.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten  # noqa: F401
from flowloom.layers.normalization import (BatchNormalization,  # noqa: F401
                                           batch_normalization)
