"""A character-level LSTM language model, trained on a text that ships with flowloom.

The model reads `seq_len` characters, embeds them, runs a (multi-layer) LSTM over them with
`tf.nn.dynamic_rnn`, and predicts each next character with a softmax layer. The loss is the
sequence loss (mean cross-entropy over the steps, as tf.contrib.seq2seq.sequence_loss), the
optimiser Adam with gradients clipped by their global norm. After training it samples text
one character at a time, feeding the LSTM state back through placeholders.

    python3 -m flowloom.examples.char_lstm                 # ~30 s on 2 cores (500 steps)
    python3 -m flowloom.examples.char_lstm --steps 3000 --hidden 256 --layers 2
"""

import argparse
import os
import time

import numpy as np

import flowloom as tf

DEFAULT_TEXT = os.path.join(os.path.dirname(__file__), "data", "weavers_river.txt")


class CharData:
    """The text as integer ids, and random training windows from it."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}
        self.ids = np.array([self.index[c] for c in text], np.int32)

    @property
    def vocab_size(self):
        return len(self.chars)

    def batch(self, rng, batch_size, seq_len):
        starts = rng.integers(0, len(self.ids) - seq_len - 1, size=batch_size)
        x = np.stack([self.ids[s:s + seq_len] for s in starts])
        y = np.stack([self.ids[s + 1:s + seq_len + 1] for s in starts])
        return x, y

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


def sequence_loss(logits, targets, weights):
    """Mean over batch and time of the weighted cross-entropy (TF's seq2seq.sequence_loss).

    Args:
      logits: `[batch, time, classes]` float logits.
      targets: `[batch, time]` int class ids.
      weights: `[batch, time]` float weights (1 for real steps, 0 for padding).

    Returns:
      A scalar loss.
    """
    with tf.name_scope("sequence_loss"):
        classes = tf.shape(logits)[2]
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=tf.reshape(logits, [-1, classes]))
        xent = xent * tf.reshape(weights, [-1])
        return tf.reduce_sum(xent) / (tf.reduce_sum(weights) + 1e-12)


class CharLSTM:
    """The graph: a training path ([batch, seq_len]) and a sampling path ([1, 1]) that share
    the variables of scope `model`."""

    def __init__(self, vocab_size, hidden, layers, embed, learning_rate, clip_norm):
        self.vocab_size = vocab_size
        with tf.variable_scope("model"):
            self.inputs = tf.placeholder(tf.int32, [None, None], name="inputs")
            self.targets = tf.placeholder(tf.int32, [None, None], name="targets")
            logits, _, _ = self._network(self.inputs, hidden, layers, embed, None)
            weights = tf.ones_like(self.targets, dtype=tf.float32)
            self.loss = sequence_loss(logits, self.targets, weights)
            params = tf.trainable_variables()
            grads, self.grad_norm = tf.clip_by_global_norm(tf.gradients(self.loss, params),
                                                           clip_norm)
            self.global_step = tf.train.get_or_create_global_step()
            self.train_op = tf.train.AdamOptimizer(learning_rate).apply_gradients(
                zip(grads, params), global_step=self.global_step)
        with tf.variable_scope("model", reuse=True):
            self.sample_input = tf.placeholder(tf.int32, [1, 1], name="sample_input")
            self.state_in = tuple(
                tf.nn.rnn_cell.LSTMStateTuple(
                    tf.placeholder(tf.float32, [1, hidden], name=f"c{i}"),
                    tf.placeholder(tf.float32, [1, hidden], name=f"h{i}"))
                for i in range(layers))
            logits, self.state_out, self.zero_state = self._network(
                self.sample_input, hidden, layers, embed, self.state_in)
            self.probs = tf.nn.softmax(logits[0, -1])

    def _network(self, ids, hidden, layers, embed, initial_state):
        embedding = tf.get_variable("embedding", [self.vocab_size, embed])
        x = tf.nn.embedding_lookup(embedding, ids)
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(layers)])
        zero_state = cell.zero_state(1, tf.float32)
        outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=initial_state,
                                           dtype=tf.float32)
        logits = tf.layers.dense(outputs, self.vocab_size, name="softmax")
        return logits, state, zero_state

    def sample(self, sess, data, prime, length, temperature, rng):
        """Feeds `prime`, then draws `length` characters from the model."""
        state = sess.run(self.zero_state)
        out = list(prime)
        probs = None
        for ch in prime:
            probs, state = self._step(sess, data.index[ch], state)
        for _ in range(length):
            logp = np.log(np.maximum(probs, 1e-12)) / temperature
            p = np.exp(logp - logp.max())
            p /= p.sum()
            nxt = int(rng.choice(len(p), p=p))
            out.append(data.chars[nxt])
            probs, state = self._step(sess, nxt, state)
        return "".join(out)

    def _step(self, sess, char_id, state):
        feed = {self.sample_input: [[char_id]]}
        for placeholders, values in zip(self.state_in, state):
            feed[placeholders.c] = values.c
            feed[placeholders.h] = values.h
        return sess.run([self.probs, self.state_out], feed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default=DEFAULT_TEXT, help="a UTF-8 text file to learn")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--embed", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=5e-3)
    parser.add_argument("--clip-norm", type=float, default=5.0)
    parser.add_argument("--print-every", type=int, default=50)
    parser.add_argument("--sample-len", type=int, default=200)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--prime", default="The ")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with open(args.text, encoding="utf-8") as f:
        data = CharData(f.read())
    rng = np.random.default_rng(args.seed)
    tf.reset_default_graph()
    tf.set_random_seed(args.seed)
    model = CharLSTM(data.vocab_size, args.hidden, args.layers, args.embed,
                     args.learning_rate, args.clip_norm)
    print(f"text: {len(data.ids)} characters, {data.vocab_size} distinct; "
          f"LSTM {args.layers}x{args.hidden}, batch {args.batch} x {args.seq_len} steps")
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.time()
        window = []
        for step in range(1, args.steps + 1):
            x, y = data.batch(rng, args.batch, args.seq_len)
            loss, _ = sess.run([model.loss, model.train_op],
                               {model.inputs: x, model.targets: y})
            window.append(loss)
            if step % args.print_every == 0 or step == args.steps:
                mean = float(np.mean(window))
                losses.append(mean)
                window = []
                print(f"step {step:5d}  loss {mean:.3f}  ({time.time() - start:.1f} s)")
        text = model.sample(sess, data, args.prime, args.sample_len, args.temperature, rng)
    print("sample:")
    print(text)
    return losses, text


if __name__ == "__main__":
    main()
