"""`tf.version`: the release constants TF 1.15 exposes, and flowloom's own version.

TF1 programs compare `tf.__version__` (or `tf.VERSION`) to choose between API generations
(`if tf.__version__ < "1.0": tf.concat(1, values)`, `LooseVersion(tf.__version__) >= "1.4"`),
so the version they read must be the TensorFlow release whose API flowloom follows:

- `VERSION` (`tf.VERSION`, `tf.version.VERSION`): "1.15.5", always.
- `flowloom.__version__`: flowloom's own version, `FLOWLOOM_VERSION`; under the `tensorflow`
  alias (`flowloom run`, `flowloom.install_as_tensorflow()`) it reads `VERSION`, since in that
  process `tensorflow.__version__` is `flowloom.__version__` and TF1 scripts branch on it.
  `flowloom.compat.uninstall()` gives it back.
- `GIT_VERSION` and `COMPILER_VERSION` name flowloom and this Python (no TF build made them).
- `GRAPH_DEF_VERSION` (and its consumer/producer minimums) describe the GraphDefs flowloom
  writes and reads.
"""

import platform

from flowloom.framework.graph_def import (GRAPH_DEF_VERSION,  # noqa: F401
                                          GRAPH_DEF_VERSION_MIN_CONSUMER,
                                          GRAPH_DEF_VERSION_MIN_PRODUCER)

FLOWLOOM_VERSION = "0.1.0"
VERSION = "1.15.5"
GIT_VERSION = f"flowloom-{FLOWLOOM_VERSION}"
COMPILER_VERSION = platform.python_compiler()
CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0
