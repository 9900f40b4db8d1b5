"""tf.app.run with tf.flags: the parsed values, the argv main receives, its exit code."""
import sys

import tensorflow as tf

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("name", "default-name", "a string")
flags.DEFINE_integer("steps", 10, "an integer")
flags.DEFINE_float("learning_rate", 0.01, "a float")
flags.DEFINE_boolean("debug", True, "a boolean")
tf.flags.DEFINE_bool("verbose", False, "another boolean")
flags.DEFINE_list("layers", ["64", "32"], "a list")
flags.DEFINE_enum("mode", "train", ["train", "eval"], "an enum")
flags.DEFINE_string(flag_name="old_style", default_value="o", docstring="TF1's old keywords")


def main(argv):
    for name in ("name", "steps", "learning_rate", "debug", "verbose", "layers", "mode",
                 "old_style"):
        print(name, repr(getattr(FLAGS, name)))
    print("argv", argv[1:])
    print("is_parsed", FLAGS.is_parsed())
    return FLAGS.steps % 7


if __name__ == "__main__":
    if "--implicit" in sys.argv:
        sys.argv.remove("--implicit")
        print("implicit steps", FLAGS.steps)
    tf.app.run()
