"""`tf.contrib.deprecated`: the pre-1.0 summary functions under their contrib names, as TF 1.x
keeps them for old programs (TF's CIFAR-10 tutorial of that era calls
`tf.contrib.deprecated.scalar_summary` and `histogram_summary`).

They take the tag itself (not a name to scope), so two towers may write the same tag; each
returns a serialized `Summary` string tensor and adds it to `GraphKeys.SUMMARIES`.

Example:
  tf.contrib.deprecated.scalar_summary('loss (raw)', loss)
  merged = tf.contrib.deprecated.merge_all_summaries()
"""

from flowloom.summary.summary import (  # noqa: F401
    audio_summary,
    histogram_summary,
    image_summary,
    merge_all_summaries,
    merge_summary,
    scalar_summary,
)

__all__ = ["audio_summary", "histogram_summary", "image_summary", "merge_all_summaries",
           "merge_summary", "scalar_summary"]
