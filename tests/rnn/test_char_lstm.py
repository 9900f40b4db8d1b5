"""The char-LSTM example trains (its loss falls) and samples text from its own alphabet."""

from flowloom.examples import char_lstm


def test_char_lstm_trains_and_samples(capsys):
    losses, text = char_lstm.main(["--steps", "40", "--batch", "8", "--seq-len", "16",
                                   "--hidden", "32", "--embed", "16", "--layers", "2",
                                   "--learning-rate", "0.01", "--print-every", "10",
                                   "--sample-len", "30", "--prime", "The "])
    out = capsys.readouterr().out
    assert "step    40" in out and "sample:" in out
    assert len(losses) == 4 and losses[-1] < losses[0] - 0.3
    assert text.startswith("The ") and len(text) == 34
    with open(char_lstm.DEFAULT_TEXT, encoding="utf-8") as f:
        alphabet = set(f.read())
    assert set(text) <= alphabet
