"""Observers of graph construction and of Session.run: how tools watch a program.

`flowloom lint` and `FLOWLOOM_EXPLAIN=1` (flowloom/explain) register callbacks here; the
framework and the session call them. With no observer registered, the cost is one check of
an empty list per op created and per run.

  op_created:    f(op)                                   after an op is added to its graph
  control_block: f(event, controller)                    event is "enter" or "exit"
  session_run:   f(session, plan, feeds, fetches, targets, seconds)   after a run
"""

op_created = []
control_block = []
session_run = []
