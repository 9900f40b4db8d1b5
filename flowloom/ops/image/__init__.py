"""Image ops: resizing, cropping, colour, codecs and boxes (the kernels under tf.image)."""
