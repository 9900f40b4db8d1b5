"""`tf.contrib.summary`: summaries written by ops to summary writer resources (graph mode)."""

from flowloom.ops.summary.summary_ops_v2 import (  # noqa: F401
    SummaryWriter, all_summary_ops, always_record_summaries, audio, create_db_writer,
    create_file_writer, create_noop_writer, create_summary_file_writer, eval_dir, flush,
    generic, graph, histogram, image, import_event, initialize, never_record_summaries,
    record_summaries_every_n_global_steps, scalar, should_record_summaries,
    summary_writer_initializer_op)
