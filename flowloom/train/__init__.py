from flowloom.train.summary_io import SummaryWriter, summary_iterator  # noqa: F401
