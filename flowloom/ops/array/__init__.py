"""Array ops: constants, shapes, reshapes, slicing, gather/scatter, padding, tiling, broadcasting."""
