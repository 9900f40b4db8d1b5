"""Set ops: sizes, intersections, differences and unions of the last dimension (`tf.sets`)."""
