"""Optimizers by name for the canned estimators, as TF's `get_optimizer_instance` gives them."""

_NAMES = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")


def _classes():
    from flowloom import train
    return {"Adagrad": train.AdagradOptimizer, "Adam": train.AdamOptimizer,
            "Ftrl": train.FtrlOptimizer, "RMSProp": train.RMSPropOptimizer,
            "SGD": train.GradientDescentOptimizer}


def get_optimizer_instance(opt, learning_rate=None):
    """An optimizer from a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD', built with
    `learning_rate`), an `Optimizer`, or a callable returning one.

    Raises:
      ValueError: for an unknown name, a name without a learning rate, or a non-optimizer.
    """
    from flowloom.train import Optimizer

    if isinstance(opt, str):
        if opt in _NAMES:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return _classes()[opt](learning_rate=learning_rate)
        raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                         f"{tuple(sorted(_NAMES))}")
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt
