"""`flowloom run` prints NumPy scalars in containers as the NumPy of TF 1.x's time did."""

import subprocess
import sys


def test_scalars_in_a_dict_print_without_their_type(tmp_path):
    script = tmp_path / "metrics.py"
    script.write_text(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "with tf.Session() as sess:\n"
        "    loss = sess.run(tf.constant(0.25))\n"
        "print({'loss': loss, 'global_step': np.int64(3)}, [np.float32(1.5)])\n")
    p = subprocess.run([sys.executable, "-m", "flowloom", "run", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout == "{'loss': 0.25, 'global_step': 3} [1.5]\n"
