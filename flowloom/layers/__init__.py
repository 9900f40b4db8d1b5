"""`tf.layers`: TF1's layers, with TF's variable and op names."""

from flowloom import lazy_names as _lazy_names

_TABLE = _lazy_names.parse({
    "flowloom.layers.base": "Layer",
    "flowloom.layers.convolutional": "AveragePooling2D Conv2D MaxPooling2D average_pooling2d conv2d max_pooling2d",
    "flowloom.layers.core": "Dense Dropout Flatten dense dropout flatten",
    "flowloom.layers.normalization": "BatchNormalization batch_normalization",
    "flowloom.layers.conv_layers": (
        "AveragePooling1D AveragePooling3D Conv1D Conv2DTranspose Conv3D Conv3DTranspose "
        "InputSpec MaxPooling1D MaxPooling3D SeparableConv1D SeparableConv2D "
        "average_pooling1d average_pooling3d conv1d conv2d_transpose conv3d conv3d_transpose "
        "max_pooling1d max_pooling3d separable_conv1d separable_conv2d"),
})

__getattr__, __dir__, _load_everything = _lazy_names.attach(
    __name__, _TABLE, submodules=("base", "conv_layers", "convolutional", "core", "normalization"))
