"""The TF-internal functions image_io_programs.py calls, from TF 1.15 or from flowloom."""


def tf_ops():
    return {}


def flowloom_ops():
    return {}
