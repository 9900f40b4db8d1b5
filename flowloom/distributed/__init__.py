"""Distributed TF1: cluster descriptions, servers, remote task devices.

`cluster_spec` is pure Python (no distributed engine needed); the runtime that runs tasks in
other processes imports its engine lazily.
"""
