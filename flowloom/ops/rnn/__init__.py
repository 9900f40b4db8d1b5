"""Recurrent networks: RNN cells, dynamic_rnn, static_rnn and their wrappers."""
