"""tf.logging: levels, the default threshold, the message format on stderr."""
import tensorflow as tf

print("levels", tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
      tf.logging.FATAL)
print("default verbosity", tf.logging.get_verbosity())
tf.logging.info("not shown at the default threshold")
tf.logging.warning("a warning %d", 1)
tf.logging.set_verbosity(tf.logging.INFO)
print("verbosity", tf.logging.get_verbosity())
tf.logging.info("step %d loss %.3f", 3, 0.25)
tf.logging.warn("warn alias")
tf.logging.error("an error")
tf.logging.debug("debug hidden")
for i in range(7):
    tf.logging.log_every_n(tf.logging.INFO, "every 3: %d", 3, i)
    tf.logging.log_first_n(tf.logging.INFO, "first 2: %d", 2, i)
tf.logging.log_if(tf.logging.INFO, "log_if true", True)
tf.logging.log_if(tf.logging.INFO, "log_if false", False)
tf.logging.set_verbosity(tf.logging.ERROR)
tf.logging.warning("hidden warning")
tf.logging.fatal("fatal does not exit")
print("still running")
