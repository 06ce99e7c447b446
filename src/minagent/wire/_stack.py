"""Decoding never overflows a thread's C stack: deep work runs where the stack can hold it.

msgspec recurses in C, one call per level of nesting, until the interpreter's recursion guard
stops it. How deep that guard lets it go moves with the interpreter: up to CPython 3.11 it is
the recursion limit (1000, raised by the codec's headroom retry to about 2064); on 3.12 a
separate C limit of about 1500; on 3.13 about 10,000. Each level takes up to `PER_LEVEL` bytes
of C stack, so on 3.13 a value nested 5000 deep overflows a thread with a 1 MiB stack
(SIGSEGV) before any depth check of ours could run.

`run` therefore calls a decode directly when this thread's stack holds every level the guard
allows (`room_here`, measured once per thread), or when the input is too short to nest deeper
than the stack holds (a level takes at least one byte); otherwise it hands the call to one
worker thread whose stack holds them (`_Worker`), and waits. The main thread (8 MiB on Linux)
and the default threads of glibc (8 MiB) never hand anything over; a thread started after
``threading.stack_size(1 << 20)`` does so on CPython 3.13 for inputs over about 2.5 kB.
docs/hostile-input.md states the guarantee; tests/test_stack_guarantee.py checks it.
"""

from __future__ import annotations

import functools
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "PER_LEVEL",
    "elsewhere",
    "fits",
    "guard_levels",
    "room_here",
    "run",
    "runs_roomy",
    "runs_roomy_unsized",
]

PER_LEVEL = 384
"""Bytes of C stack one level of msgspec's recursion may take, rounded up from the most we
measured (341 bytes for JSON, 291 for MessagePack, on CPython 3.10 to 3.13, x86-64, msgspec
0.23: tests/test_stack_guarantee.py measures it again)."""

MARGIN = 192 << 10
"""Stack kept for the caller's own frames and ours."""

SHORT = 256
"""Inputs of at most this many bytes nest at most this deep, which any thread's stack holds
(with `MARGIN`: 288 KiB), so they are decoded where they are without a look at the stack."""

WORKER_STACK = 64 << 20
"""The worker's stack: room for 170,000 levels (virtual memory, touched only when used)."""

T = TypeVar("T")
_here = threading.local()


def guard_levels() -> int:
    """How many levels msgspec's recursion guard lets a decode nest in this thread now (on
    CPython 3.12+, at least `room_here` + 1 when this thread's stack cannot hold more)."""
    if sys.version_info < (3, 12):  # one counter with Python frames: the recursion limit
        return sys.getrecursionlimit()
    if _guard:
        return _guard[0]
    most = min(room_here(), 1 << 17)  # what this stack holds (an unlimited one: 131,072)
    found = _measure_guard(most) if most > 0 else None
    if found is None:  # the guard lies past what this thread can measure
        return most + 1
    _guard.append(found)
    return found


_guard: list[int] = []


def _measure_guard(most: int) -> int | None:
    """The nesting at which msgspec's schema-less JSON decode meets the C recursion guard
    (CPython 3.12+: a fixed count per thread), by bisection up to ``most`` levels (what this
    stack holds); None if ``most`` levels decode."""
    import msgspec

    decode = msgspec.json.Decoder().decode

    def refused(levels: int) -> bool:
        try:
            decode(b"[" * levels + b"]" * levels)
        except RecursionError:
            return True
        return False

    if not refused(most):
        return None
    lo, hi = 0, most  # lo decodes, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if refused(mid):
            hi = mid
        else:
            lo = mid
    return hi


def room_here() -> int:
    """How many levels of msgspec's recursion this thread's stack holds (0 if unknown)."""
    levels: int | None = getattr(_here, "levels", None)
    if levels is None:
        size = WORKER_STACK if threading.current_thread() is _WORKER_THREAD[0] else _stack_size()
        levels = _here.levels = 0 if size is None else room_for(size)
    return levels


def room_for(stack: int) -> int:
    """How many levels of msgspec's recursion a stack of ``stack`` bytes holds."""
    return max(0, stack - MARGIN) // PER_LEVEL


def _stack_size() -> int | None:
    """This thread's stack size in bytes, from the C library (Linux, macOS); None elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.pthread_self.restype = ctypes.c_void_p
        me = ctypes.c_void_p(libc.pthread_self())
        if sys.platform == "darwin":
            libc.pthread_get_stacksize_np.restype = ctypes.c_size_t
            return int(libc.pthread_get_stacksize_np(me))
        attr = ctypes.create_string_buffer(256)  # pthread_attr_t: 56 bytes on glibc x86-64
        if libc.pthread_getattr_np(me, attr) != 0:
            return None
        try:
            addr, size = ctypes.c_void_p(), ctypes.c_size_t()
            if libc.pthread_attr_getstack(attr, ctypes.byref(addr), ctypes.byref(size)) != 0:
                return None
            return int(size.value)
        finally:
            libc.pthread_attr_destroy(attr)
    except (ImportError, OSError, AttributeError):
        return None


def fits(size: int | None) -> bool:
    """Whether a decode of ``size`` bytes (None: unknown) can run on this thread's stack."""
    if size is not None and size <= SHORT:
        return True
    here = _here.__dict__
    room: int | None = here.get("levels")
    if room is None:
        room = room_here()
    if size is not None and size <= room:
        return True
    if _FIXED_GUARD:  # one count for the life of the thread: decided once
        roomy: bool | None = here.get("roomy")
        if roomy is None:
            roomy = here["roomy"] = guard_levels() <= room
        return roomy
    return sys.getrecursionlimit() <= room


_FIXED_GUARD = sys.version_info >= (3, 12)


def run(call: Callable[..., T], size: int | None, *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``, on this thread if `fits` (``size``), else on the worker."""
    if fits(size):
        return call(*args, **kwargs)
    return elsewhere(call, *args, **kwargs)


def elsewhere(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)`` on the worker thread (its stack holds `WORKER_STACK`); on
    the worker itself, directly (what it cannot hold, nothing can: the recursion guard or our
    depth checks refuse it first, within `WORKER_STACK`)."""
    if threading.current_thread() is _WORKER_THREAD[0]:
        return call(*args, **kwargs)
    return _worker().call(call, *args, **kwargs)


_BYTES = (bytes, bytearray, memoryview, str)


def runs_roomy(function: Callable[..., T]) -> Callable[..., T]:
    """Decorate a decoding function so that it runs where the stack holds the recursion
    guard's levels (`run`), sized by its data: its first or second argument, if bytes-like."""

    @functools.wraps(function)
    def roomy(*args: Any, **kwargs: Any) -> T:
        size: int | None
        if args and type(args[0]) is bytes:  # the common call: bytes first, that fit here
            size = len(args[0])
            if size <= SHORT or size <= _here.__dict__.get("levels", 0):
                return function(*args, **kwargs)
        size = None
        for data in args[:2]:  # the data: first, or after a codec
            if isinstance(data, _BYTES):
                size = data.nbytes if isinstance(data, memoryview) else len(data)
                if size <= SHORT:
                    return function(*args, **kwargs)
                break
        if fits(size):  # (`run`, without its call)
            return function(*args, **kwargs)
        return elsewhere(function, *args, **kwargs)

    return roomy


def runs_roomy_unsized(function: Callable[..., T]) -> Callable[..., T]:
    """Decorate a method that decodes what it has buffered (a stream parser's ``feed`` and
    ``close``: one chunk may complete an event of many): only this thread's room counts."""

    @functools.wraps(function)
    def roomy(*args: Any, **kwargs: Any) -> T:
        if fits(None):
            return function(*args, **kwargs)
        return elsewhere(function, *args, **kwargs)

    return roomy


class _Worker:
    """One daemon thread with a `WORKER_STACK` stack, running calls handed to it in turn."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        with _STARTING:
            before = threading.stack_size(WORKER_STACK)
            try:
                thread = threading.Thread(
                    target=self._serve, name="minagent-deep-decode", daemon=True
                )
                thread.start()
            finally:
                threading.stack_size(before)
        _WORKER_THREAD[0] = thread

    def _serve(self) -> None:
        while True:
            call, args, kwargs, box, done = self._calls.get()
            try:
                box.append((True, call(*args, **kwargs)))
            except BaseException as err:  # handed back to the caller, raised there
                box.append((False, err))
            finally:
                done.release()

    def call(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        done = threading.Lock()
        done.acquire()
        box: list[tuple[bool, Any]] = []
        self._calls.put((call, args, kwargs, box, done))
        done.acquire()
        ok, value = box[0]
        if ok:
            result: T = value  # what ``call`` returned
            return result
        raise value


_STARTING = threading.Lock()
_WORKER_THREAD: list[threading.Thread | None] = [None]
_workers: list[_Worker] = []


def _worker() -> _Worker:
    if not _workers:
        with _CREATING:
            if not _workers:
                _workers.append(_Worker())
    return _workers[0]


_CREATING = threading.Lock()


def _forget_worker() -> None:
    """In a forked child the worker thread does not exist: start another when needed."""
    _workers.clear()
    _WORKER_THREAD[0] = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)
