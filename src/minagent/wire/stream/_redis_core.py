"""The Redis publisher and consumer once, for both redis-py clients (blocking and asyncio).

Every operation is written here as *steps*: a generator that yields the Redis commands to send
(a `Call`, or a list of them for one ``MULTI`` / ``EXEC`` transaction), is sent each reply (or
has the command's exception thrown in) and returns the operation's result. A `Run` advances the
steps; `minagent.wire.stream.redis` executes each command with the blocking client and
`minagent.wire.stream.redis_asyncio` awaits it. So there is one consumer (which entries to read
in which order, claiming, dead letters, what a lost reply means) and two ways to wait, the way
protocol libraries without I/O (h11, for example) serve both worlds.

Entries themselves (fields, batch decoding, dead-letter fields) are in `_redis_entries`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Generator, Sequence
from typing import Any, Generic, TypeVar

import redis

from ..limits import DEFAULT, Limits
from ..messages import Message, ModelResponse
from . import _redis_entries as _e

__all__ = ["DEFAULT_CLAIM_IDLE_MS", "Call", "ConsumerCore", "PublisherCore", "Run", "Step"]

DEFAULT_CLAIM_IDLE_MS = _e.DEFAULT_CLAIM_IDLE_MS

C = TypeVar("C")
T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Call:
    """One Redis command: the client method's name and its arguments."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    def on(self, target: Any) -> Any:
        """Call the method on ``target`` (a client or a pipeline); return what it returns."""
        return getattr(target, self.method)(*self.args, **self.kwargs)


Step = Call | list[Call]
"""What steps yield: one command, or a list of commands sent as one transaction."""

Steps = Generator[Step, Any, T]


def pipeline(client: Any, calls: list[Call]) -> Any:
    """A transaction pipeline of ``client`` holding ``calls``, ready for ``execute()``."""
    pipe = client.pipeline(transaction=True)
    for call in calls:
        call.on(pipe)
    return pipe


class Run(Generic[T]):
    """Advances steps: `next` gives the command to execute, after `reply` or `fail` told the
    steps how the previous one went; when the steps are done it gives None and ``result``
    holds their return value."""

    def __init__(self, steps: Steps[T]) -> None:
        self._steps = steps
        self._reply: Any = None
        self._error: BaseException | None = None
        self.result: T

    def next(self) -> Step | None:
        """The next command, or None once the steps have returned (or raise what they raise)."""
        error, self._error = self._error, None
        try:
            return self._steps.send(self._reply) if error is None else self._steps.throw(error)
        except StopIteration as stop:
            self.result = stop.value
            return None

    def reply(self, value: Any) -> None:
        """The previous command returned ``value``."""
        self._reply = value

    def fail(self, error: Exception) -> None:
        """The previous command raised ``error``: it is raised inside the steps."""
        self._error = error


class PublisherCore(Generic[C]):
    """What both publishers hold, and the steps of a publish."""

    def __init__(
        self,
        client: C,
        stream: str,
        *,
        format: str = "msgpack",
        maxlen: int | None = None,
    ) -> None:
        """``maxlen`` trims the stream approximately (``MAXLEN ~``) on every append; entries
        trimmed before a consumer acknowledged them reach the dead-letter stream."""
        _e.check_client(client)
        self.client = client
        self.stream = stream
        self.format = _e.check_format(format)
        self.maxlen = maxlen

    def _publish(self, messages: _e.Publishable) -> Steps[list[str]]:
        entries = _e.encode_entries(messages, self.format)  # before anything is sent
        if not entries:
            return []
        trim = {"maxlen": self.maxlen, "approximate": True}
        ids = yield [Call("xadd", (self.stream, fields), trim) for fields in entries]
        return [_e.entry_id(eid) for eid in ids]


class ConsumerCore(Generic[C]):
    """What both consumers hold, and the steps of a read and an acknowledgement."""

    def __init__(
        self,
        client: C,
        stream: str,
        group: str,
        name: str,
        *,
        format: str | None = None,
        type: type[Message] | type[ModelResponse] = Message,
        batch: int = 100,
        block_ms: int | None = None,
        claim_idle_ms: int | None = DEFAULT_CLAIM_IDLE_MS,
        limits: Limits = DEFAULT,
        dead_letter: str | None = None,
        create: bool = True,
    ) -> None:
        """``format`` restricts the formats accepted (default: both); ``type`` is `Message` or
        `ModelResponse`; ``claim_idle_ms=None`` never claims others' entries; ``dead_letter``
        defaults to ``<stream>:dead``; ``create`` makes the group (from the stream's start) and
        the stream if missing (the blocking consumer at once, the asyncio one on its first
        read)."""
        _e.check_client(client)
        self.client = client
        self.stream = stream
        self.group = group
        self.name = name
        self.accept = None if format is None else _e.check_format(format)
        self.type = type
        self.batch = batch
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.limits = limits
        self.dead_letter = f"{stream}:dead" if dead_letter is None else dead_letter
        self._create = create
        self._history: str | None = "0"
        self._cursor = "0-0"
        self._next_claim = 0.0
        self._start()

    def _start(self) -> None:
        """Called at the end of ``__init__``: the blocking consumer creates its group here."""

    def _create_group(self) -> Steps[None]:
        """Create the group (and the stream) unless done; an existing group is fine."""
        if not self._create:
            return
        try:
            yield Call("xgroup_create", (self.stream, self.group), {"id": "0", "mkstream": True})
        except redis.ResponseError as err:
            if "BUSYGROUP" not in str(err):
                raise
        self._create = False

    def _read(self) -> Steps[list[tuple[str, Any]]]:
        """One batch of ``(entry_id, message)``: first this consumer's own pending entries, then
        entries idle past ``claim_idle_ms`` elsewhere in the group, then new ones. Empty when
        there is nothing. Poison entries are moved to the dead-letter stream on the way."""
        yield from self._create_group()
        try:
            while True:
                entries = yield from self._fetch()
                if not entries:
                    return []
                out = _e.decode_entries(
                    entries, type=self.type, accept=self.accept, limits=self.limits
                )
                if out.poison:
                    yield self._bury(out.poison)
                if out.messages:
                    return out.messages
        except (redis.ConnectionError, redis.TimeoutError):
            self._history = "0"  # a reply may be lost: re-read our own pending entries first
            raise

    def _ack(self, entry_ids: str | Sequence[str]) -> Steps[int]:
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        if not ids:
            return 0
        return int((yield Call("xack", (self.stream, self.group, *ids))))

    def _fetch(self) -> Steps[list[Any]]:
        if self._history is not None:
            entries = _e.stream_entries((yield self._read_group(self._history)))
            if entries:
                self._history = _e.entry_id(entries[-1][0])
                return entries
            self._history = None
        if self.claim_idle_ms is not None and time.monotonic() >= self._next_claim:
            claim = Call(
                "xautoclaim",
                (self.stream, self.group, self.name),
                {
                    "min_idle_time": self.claim_idle_ms,
                    "start_id": self._cursor,
                    "count": self.batch,
                },
            )
            cursor, claimed, deleted = (yield claim)[:3]
            self._cursor = _e.entry_id(cursor)
            if self._cursor == "0-0":
                self._next_claim = time.monotonic() + self.claim_idle_ms / 2000
            if claimed or deleted:
                return [*claimed, *((eid, None) for eid in deleted)]
        return _e.stream_entries((yield self._read_group(">", block=self.block_ms)))

    def _read_group(self, start: str, **block: int | None) -> Call:
        return Call(
            "xreadgroup",
            (self.group, self.name, {self.stream: start}),
            {"count": self.batch, **block},
        )

    def _bury(self, poison: list[Any]) -> list[Call]:
        calls = [
            Call(
                "xadd",
                (
                    self.dead_letter,
                    _e.dead_letter_fields(
                        eid, fields, err, stream=self.stream, group=self.group, name=self.name
                    ),
                ),
            )
            for eid, fields, err in poison
        ]
        calls.append(Call("xack", (self.stream, self.group, *(eid for eid, _, _ in poison))))
        return calls
