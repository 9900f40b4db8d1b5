"""`tf.compat.forward_compatible` and `tf.compat.forward_compatibility_horizon`.

TF 1.15 gates new graph constructs on a date: code built after the horizon may emit ops that
older consumers lack. flowloom reports TF 1.15's horizon (2019-08-21, moved by the
TF_FORWARD_COMPATIBILITY_DELTA_DAYS environment variable as in TF) so programs that branch
on it take TF 1.15's branch; the horizon can be moved for a block with the context manager.
"""

import contextlib
import datetime
import os

_HORIZON = datetime.date(2019, 8, 21)
_DELTA_DAYS_VAR = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_date_number = [None]


def _as_number(year, month, day):
    return (year << 9) | (month << 5) | day


def _current():
    if _date_number[0] is None:
        date = _HORIZON
        delta = os.getenv(_DELTA_DAYS_VAR)
        if delta:
            date += datetime.timedelta(days=int(delta))
        _date_number[0] = _as_number(date.year, date.month, date.day)
    return _date_number[0]


def forward_compatible(year, month, day):
    """True when the forward-compatibility horizon is past the given date.

    Args:
      year: A year (e.g. 2018); must be an `int`.
      month: A month (1 <= month <= 12); must be an `int`.
      day: A day (1 <= day <= 31, or 30, or 29, or 28); must be an `int`.
    """
    return _current() > _as_number(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within the block, forward_compatible() uses the given date as the horizon.

    Raises:
      TypeError: If the date is not given as integers.
    """
    for value in (year, month, day):
        if not isinstance(value, int):
            raise TypeError(f"year, month and day must be int, got {value!r}")
    saved = _current()
    _date_number[0] = _as_number(year, month, day)
    try:
        yield
    finally:
        _date_number[0] = saved
