"""The NumPy types TF's `pywrap_tensorflow` hands out: `TF_bfloat16_type()`."""

from flowloom.framework import dtypes


def TF_bfloat16_type():  # noqa: N802 - TF's name
    """NumPy's bfloat16 scalar type (tf.bfloat16.as_numpy_dtype).

    Raises:
      NotImplementedError: where the `ml_dtypes` package (which holds it) is not installed.
    """
    np_type = dtypes.bfloat16.as_numpy_dtype
    if np_type is None:
        raise NotImplementedError("NumPy's bfloat16 type needs the ml_dtypes package "
                                  "(pip install ml_dtypes)")
    return np_type
