"""`tf.layers`: TF1's layers, with TF's variable and op names."""

from flowloom.layers.base import Layer  # noqa: F401
from flowloom.layers.convolutional import (AveragePooling2D, Conv2D, MaxPooling2D,  # noqa: F401
                                           average_pooling2d, conv2d, max_pooling2d)
from flowloom.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten  # noqa: F401
from flowloom.layers.normalization import (BatchNormalization,  # noqa: F401
                                           batch_normalization)
from flowloom.layers.conv_layers import (AveragePooling1D, AveragePooling3D, Conv1D,  # noqa: F401
                                         Conv2DTranspose, Conv3D, Conv3DTranspose, InputSpec,
                                         MaxPooling1D, MaxPooling3D, SeparableConv1D,
                                         SeparableConv2D, average_pooling1d, average_pooling3d,
                                         conv1d, conv2d_transpose, conv3d, conv3d_transpose,
                                         max_pooling1d, max_pooling3d, separable_conv1d,
                                         separable_conv2d)
