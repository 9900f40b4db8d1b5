"""`tf.estimator.tpu`: flowloom has no TPUs; every name raises NotImplementedError."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"tf.estimator.tpu.{name} (TPUEstimator and TPU configs: "
                              "flowloom has no TPU devices)")
