"""The user's lines: where in the user's code an op or a variable was made.

Capturing them is on the path of every op, so it stays cheap: a walk up the frame pointers
to the first frame outside flowloom, keeping its code object and instruction offset; the
line number and the source line are worked out only when a message needs them.
"""

import os
import sys
import threading
import traceback

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Source files seen so far, inside and outside flowloom: a set lookup per frame is about
# half the cost of a prefix test, and the walk passes ~15 frames for a variable's ops.
_inside = set()
_outside = set()


def _is_inside(filename):
    inside = filename.startswith(_PACKAGE_DIR)
    seen = _inside if inside else _outside
    if len(seen) < 10000:
        seen.add(filename)
    return inside


class _Pinned(threading.local):
    frame = None  # a flowloom frame of this thread whose user site is known
    site = None


_pinned = _Pinned()


def user_site(depth=2):
    """Where the first frame outside flowloom above the caller's `depth`-th frame is: its
    (code, instruction offset), or None. `site_frame` turns it into (file, line, function);
    the line is worked out only then, since finding it walks the code's line table (costly
    for long module-level scripts)."""
    f = sys._getframe(depth)
    inside = _inside
    pinned = _pinned.frame
    while f is not None:
        code = f.f_code
        if code.co_filename not in inside and (code.co_filename in _outside or
                                               not _is_inside(code.co_filename)):
            return (code, f.f_lasti)
        if f is pinned:  # (a flowloom frame: pinned_site's caller)
            # Every frame from here up is as it was when the site was pinned.
            return _pinned.site
        f = f.f_back
    return None


class pinned_site:  # noqa: N801 - used as a context manager
    """In the block, walks that reach the caller's frame (a flowloom function making many
    ops, such as a variable's constructor) stop there with the site found above it once:
    the frames above a running frame do not change, so the answer is the same."""

    __slots__ = ("_saved",)

    def __enter__(self):
        state = _pinned
        self._saved = (state.frame, state.site)
        frame = sys._getframe(1)
        state.site = user_site(2)
        state.frame = frame
        return self

    def __exit__(self, *exc):
        _pinned.frame, _pinned.site = self._saved
        return False


def pin_site():
    """pinned_site's entry for its caller's frame, as a call (a variable's constructor):
    returns what `unpin_site` restores."""
    state = _pinned
    saved = (state.frame, state.site)
    state.site = user_site(2)
    state.frame = sys._getframe(1)
    return saved


def unpin_site(saved):
    _pinned.frame, _pinned.site = saved


def site_frame(site):
    """The (file, line, function) of a `user_site`."""
    code, lasti = site
    line = code.co_firstlineno
    for start, end, ln in code.co_lines():
        if start <= lasti < end:
            if ln is not None:
                line = ln
            break
    return (code.co_filename, line, code.co_name)


def user_sites(limit=5, depth=2):
    """The `user_site`s of up to `limit` frames outside flowloom, innermost first (the frames
    TF's "Originally defined at" message shows)."""
    out = []
    f = sys._getframe(depth)
    while f is not None and len(out) < limit:
        filename = f.f_code.co_filename
        if not (filename in _inside or (filename not in _outside and _is_inside(filename))):
            out.append((f.f_code, f.f_lasti))
        f = f.f_back
    return out


def format_sites(sites):
    """`File "x.py", line 3, in f` lines (with their source) for `user_sites`, in their order
    (innermost first, as TF's message lists them)."""
    summaries = [traceback.FrameSummary(*site_frame(s)) for s in sites]
    return "".join(traceback.format_list(summaries))
