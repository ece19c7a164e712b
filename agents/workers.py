"""Worker processes that outlive their agents: a dead worker costs the item it was running.

:func:`surviving_map` runs ``fn(batch)`` (a list of items in, one result per item out) on
spawned worker processes (``concurrent.futures.ProcessPoolExecutor``, which reports a worker
that ended abruptly as ``BrokenProcessPool``, where ``multiprocessing.Pool`` would wait for it
for ever). At most two batches per worker are in flight. When a worker dies (an agent called
``os._exit``, crashed the interpreter, or was killed for memory), every batch that was in
flight is a suspect: its items are run again one at a time in a single-worker pool, so an
item that kills that worker again is known exactly and becomes ``lost(item, why)``; the other
items run on as before. A batch that raises ``SystemExit`` is treated the same way. Results
come as ``(index, result)`` pairs in completion order; the caller restores its own order.

Stopping early (the caller closes the generator, Ctrl+C) cancels what has not started and
stops the worker processes.
"""

from __future__ import annotations

import multiprocessing as mp
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

DIED = "its worker process ended abruptly (os._exit, a crash of the interpreter, or a kill)"


def _executor(workers: int, initializer: Callable | None, initargs: tuple) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        workers, mp_context=mp.get_context("spawn"), initializer=initializer, initargs=initargs
    )


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting for a worker that may never finish."""
    pool.shutdown(wait=False, cancel_futures=True)
    # the executor has no public way to stop its workers (before Python 3.14)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.join(5)


def _failure(error: BaseException) -> str | None:
    """Why a batch's worker failed it, or None for an ordinary exception (raised on)."""
    if isinstance(error, BrokenProcessPool):
        return DIED
    if isinstance(error, SystemExit):
        return f"it raised SystemExit({error.code!r}) in its worker process"
    return None


def surviving_map(
    fn: Callable[[list[Any]], list[Any]],
    items: Sequence[Any],
    workers: int,
    chunk: int,
    lost: Callable[[Any, str], Any],
    initializer: Callable | None = None,
    initargs: tuple = (),
) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` for every item (module docstring). ``fn`` must be picklable."""
    todo = deque(list(range(i, min(i + chunk, len(items)))) for i in range(0, len(items), chunk))
    suspects: deque[int] = deque()
    while todo or suspects:
        if suspects:
            yield from _alone(fn, items, suspects, lost, initializer, initargs)
            continue
        yield from _parallel(fn, items, todo, suspects, workers, initializer, initargs)


def _parallel(
    fn: Callable[[list[Any]], list[Any]],
    items: Sequence[Any],
    todo: deque[list[int]],
    suspects: deque[int],
    workers: int,
    initializer: Callable | None,
    initargs: tuple,
) -> Iterator[tuple[int, Any]]:
    """Run the batches of ``todo`` until they are done or a worker dies; the items of a
    failed batch go to ``suspects`` (after a death, those of every batch then in flight)."""
    pool = _executor(workers, initializer, initargs)
    flying: dict[Future, list[int]] = {}
    clean = False
    try:
        while todo or flying:
            while todo and len(flying) < 2 * workers:
                batch = todo.popleft()
                flying[pool.submit(fn, [items[i] for i in batch])] = batch
            done, _ = wait(flying, return_when=FIRST_COMPLETED)
            if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                done, _ = wait(flying, timeout=60)  # a broken pool fails the rest at once
                for fut in set(flying) - done:
                    suspects.extend(flying.pop(fut))
            for fut in done:
                yield from _collect(fut, flying.pop(fut), suspects)
            if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                return
        clean = True
    finally:
        if clean:
            pool.shutdown(wait=True)
        else:
            _stop(pool)


def _collect(fut: Future, batch: list[int], suspects: deque[int]) -> Iterator[tuple[int, Any]]:
    """The results of a finished batch, or its items added to ``suspects``."""
    error = fut.exception()
    if error is None:
        yield from zip(batch, fut.result(), strict=True)
    elif _failure(error) is not None:
        suspects.extend(batch)
    else:
        raise error


def _alone(
    fn: Callable[[list[Any]], list[Any]],
    items: Sequence[Any],
    suspects: deque[int],
    lost: Callable[[Any, str], Any],
    initializer: Callable | None,
    initargs: tuple,
) -> Iterator[tuple[int, Any]]:
    """Run each suspect item alone in a one-worker pool; one that fails it is ``lost``."""
    pool = _executor(1, initializer, initargs)
    try:
        while suspects:
            i = suspects.popleft()
            fut = pool.submit(fn, [items[i]])
            error = fut.exception()
            if error is None:
                yield i, fut.result()[0]
                continue
            why = _failure(error)
            if why is None:
                raise error
            yield i, lost(items[i], why)
            if isinstance(error, BrokenProcessPool):
                _stop(pool)
                pool = _executor(1, initializer, initargs)
    finally:
        _stop(pool)
