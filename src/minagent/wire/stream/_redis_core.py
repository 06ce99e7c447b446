"""The Redis publisher and consumer once, for both redis-py clients (blocking and asyncio).

Every operation is written here as *steps*: a generator that yields the Redis commands to send
(a `Call`, or a list of them pipelined in one round trip), is sent each reply (or has the
command's exception thrown in) and returns the operation's result. A `Run` advances the
steps; `minagent.wire.stream.redis` executes each command with the blocking client and
`minagent.wire.stream.redis_asyncio` awaits it. So there is one consumer (which entries to read
in which order, claiming, dead letters, what a lost reply means) and two ways to wait, the way
protocol libraries without I/O (h11, for example) serve both worlds.

Every write is safe to send twice, because redis-py may re-send a command whose reply was
lost (its ``Retry``; ten attempts for ``Redis(host, port)``) and the caller is never told:

- a publish is one Lua script that records its key (the caller's, or a random one per call)
  with the entry ids it added, and adds nothing when the key is already recorded: a re-sent
  publish returns the first one's ids;
- moving poison entries to the dead-letter stream is one Lua script, recorded the same way,
  that acknowledges an entry only after its dead-letter entry was added;
- every read of new or claimed entries is pipelined with ``XPENDING``: when this consumer holds
  more pending entries than it handed to its caller, a reply was lost and re-sent, and the
  next reads re-read its own pending entries, skipping the ones the caller holds.

Entries themselves (fields, batch decoding, dead-letter fields) are in `_redis_entries`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import os
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, Generic, TypeVar

import redis

from ..errors import DeadLetterError
from ..limits import DEFAULT, Limits
from ..messages import Message, ModelResponse
from . import _redis_entries as _e

__all__ = [
    "DEFAULT_CLAIM_IDLE_MS",
    "DEFAULT_DEDUPE_MS",
    "Call",
    "ConsumerCore",
    "PublisherCore",
    "Run",
    "Script",
    "Step",
]

DEFAULT_CLAIM_IDLE_MS = _e.DEFAULT_CLAIM_IDLE_MS
DEFAULT_DEDUPE_MS = 600_000
"""How long a publish's key is remembered: a publish re-sent with it in that time adds nothing."""

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
"""What steps yield: one command, or a list of commands pipelined in one round trip (not a
transaction: a blocking ``XREADGROUP`` must be able to wait)."""

Steps = Generator[Step, Any, T]


def pipeline(client: Any, calls: list[Call]) -> Any:
    """A pipeline (no ``MULTI``) of ``client`` holding ``calls``, ready for ``execute()``."""
    pipe = client.pipeline(transaction=False)
    for call in calls:
        call.on(pipe)
    return pipe


@dataclasses.dataclass(frozen=True)
class Script:
    """A Lua script, run by its SHA1 (``EVALSHA``), sent whole (``EVAL``) when the server does
    not have it yet."""

    text: str

    @property
    def sha(self) -> str:
        """The script's SHA1, as ``EVALSHA`` names it."""
        return hashlib.sha1(self.text.encode()).hexdigest()

    def run(self, keys: Sequence[str], args: Sequence[Any]) -> Steps[Any]:
        """Run the script once; return its reply."""
        try:
            return (yield Call("evalsha", (self.sha, len(keys), *keys, *args)))
        except redis.exceptions.NoScriptError:
            return (yield Call("eval", (self.text, len(keys), *keys, *args)))


PUBLISH = Script(
    """
-- KEYS: stream, record; ARGV: record ms, maxlen ('' for none), field name, payloads...
local done = redis.call('GET', KEYS[2])
if done then return done end
local ids = {}
for i = 4, #ARGV do
  if ARGV[2] == '' then
    ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', ARGV[3], ARGV[i])
  else
    ids[#ids + 1] = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[i])
  end
end
local joined = table.concat(ids, ' ')
redis.call('SET', KEYS[2], joined, 'PX', ARGV[1])
return joined
"""
)
"""Add one entry per payload, once per record key; return the entry ids, space-separated."""

BURY = Script(
    """
-- KEYS: stream, dead-letter stream, record; ARGV: group, record ms, then for each entry:
-- id, number of field arguments, field arguments...
local done = redis.call('HMGET', KEYS[3], 'moved', 'error')
if done[1] then return {tonumber(done[1]), done[2]} end
local i, moved, err = 3, 0, ''
while i <= #ARGV do
  local count = tonumber(ARGV[i + 1])
  local added = redis.pcall('XADD', KEYS[2], '*', unpack(ARGV, i + 2, i + 1 + count))
  if type(added) == 'table' and added.err then
    err = added.err
    break
  end
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[i])
  moved = moved + 1
  i = i + 2 + count
end
redis.call('HSET', KEYS[3], 'moved', moved, 'error', err)
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return {moved, err}
"""
)
"""Move poison entries to the dead-letter stream in order, acknowledging each only after its
dead-letter entry was added; stop at the first refused write. Once per record key; return how
many moved and the refusal ('' if none)."""


def _token() -> str:
    """A record key for a write the caller gave no key: random, one per call."""
    return os.urandom(16).hex()


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
        dedupe_ms: int = DEFAULT_DEDUPE_MS,
    ) -> None:
        """``maxlen`` trims the stream approximately (``MAXLEN ~``) on every append; entries
        trimmed before a consumer acknowledged them reach the dead-letter stream.
        ``dedupe_ms``: how long each publish's key and entry ids are kept in Redis (under
        ``<stream>:published:<key>``), so that a publish re-sent within it adds nothing."""
        _e.check_client(client)
        if isinstance(dedupe_ms, bool) or not isinstance(dedupe_ms, int) or dedupe_ms < 1:
            raise ValueError(f"dedupe_ms must be a positive int (milliseconds), got {dedupe_ms!r}")
        self.client = client
        self.stream = stream
        self.format = _e.check_format(format)
        self.maxlen = maxlen
        self.dedupe_ms = dedupe_ms

    def _publish(self, messages: _e.Publishable, key: str | None) -> Steps[list[str]]:
        if key is not None and (not isinstance(key, str) or not key):
            raise ValueError(f"key must be a non-empty str, got {key!r}")
        payloads = _e.encode_payloads(messages, self.format)  # before anything is sent
        if not payloads:
            return []
        record = f"{self.stream}:published:{_token() if key is None else key}"
        maxlen = "" if self.maxlen is None else self.maxlen
        args = [self.dedupe_ms, maxlen, _e.field_name(self.format), *payloads]
        joined = yield from PUBLISH.run([self.stream, record], args)
        return _e.entry_id(joined).split()


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
        self._held: set[str] = set()  # handed to the caller, not acknowledged through us
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
                    yield from self._bury(out.poison)
                if out.messages:
                    self._held.update(eid for eid, _ in out.messages)
                    return out.messages
        except (redis.ConnectionError, redis.TimeoutError, DeadLetterError):
            self._history = "0"  # a reply may be lost: re-read our own pending entries first
            raise

    def _ack(self, entry_ids: str | Sequence[str]) -> Steps[int]:
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        if not ids:
            return 0
        acked = int((yield Call("xack", (self.stream, self.group, *ids))))
        self._held.difference_update(ids)
        return acked

    def _fetch(self) -> Steps[list[Any]]:
        """The next entries to hand over: own pending ones the caller does not hold, claimed
        ones, new ones; and if a read of claimed or new entries just noticed that an earlier
        delivery's reply was lost, the entries of that delivery at once."""
        entries = yield from self._own()
        if not entries:
            entries = yield from self._claimed()
        if not entries:
            new = self._read_group(">", block=self.block_ms)
            _, entries = yield from self._checked(new, _e.stream_entries)
        if not entries:
            entries = yield from self._own()
        return entries

    def _own(self) -> Steps[list[Any]]:
        """The next page of this consumer's pending entries that its caller does not hold,
        while re-reading them (empty once they are through)."""
        while self._history is not None:
            entries = _e.stream_entries((yield self._read_group(self._history)))
            if not entries:
                self._history = None
                return []
            self._history = _e.entry_id(entries[-1][0])
            fresh = [entry for entry in entries if _e.entry_id(entry[0]) not in self._held]
            if fresh:
                return fresh
        return []

    def _claimed(self) -> Steps[list[Any]]:
        """Entries idle past ``claim_idle_ms`` in the group, claimed for this consumer (the
        scan runs at most every ``claim_idle_ms / 2`` once through the pending list), but
        none its caller holds (its own, held past ``claim_idle_ms``, come back to it)."""
        if self.claim_idle_ms is None or time.monotonic() < self._next_claim:
            return []
        claim = Call(
            "xautoclaim",
            (self.stream, self.group, self.name),
            {"min_idle_time": self.claim_idle_ms, "start_id": self._cursor, "count": self.batch},
        )
        reply, claimed = yield from self._checked(claim, operator.itemgetter(1))
        self._cursor = _e.entry_id(reply[0])
        if self._cursor == "0-0":
            self._next_claim = time.monotonic() + self.claim_idle_ms / 2000
        return [*claimed, *((eid, None) for eid in reply[2])]

    def _checked(
        self, call: Call, entries_of: Callable[[Any], list[Any]]
    ) -> Steps[tuple[Any, list[Any]]]:
        """Send ``call``, a read that delivers entries to this consumer, pipelined with an
        ``XPENDING`` summary; return its reply and the entries in it the caller does not hold.
        If the consumer now holds more pending entries than its caller holds plus those, a
        reply was lost (and the read re-sent by the client): re-read the own entries next."""
        reply, summary = yield [call, Call("xpending", (self.stream, self.group))]
        entries = [entry for entry in entries_of(reply) if _e.entry_id(entry[0]) not in self._held]
        if _e.pending_count(summary, self.name) > len(self._held) + len(entries):
            self._history = "0"
        return reply, entries

    def _hand_over(self, batch: list[tuple[str, Any]]) -> Generator[tuple[str, Any], None, None]:
        """Yield the entries of a batch; if the caller stops iterating (closes this) before
        taking them all, the rest are no longer held and the next read re-reads them first."""
        taken = 0
        try:
            for item in batch:
                yield item
                taken += 1
        finally:  # closed early: the item being yielded was taken, the rest was not
            rest = batch[taken + 1 :]
            if rest:
                self._held.difference_update(eid for eid, _ in rest)
                self._history = "0"

    def _read_group(self, start: str, **block: int | None) -> Call:
        return Call(
            "xreadgroup",
            (self.group, self.name, {self.stream: start}),
            {"count": self.batch, **block},
        )

    def _bury(self, poison: list[Any]) -> Steps[None]:
        """Move poison entries to the dead-letter stream, acknowledging each once its dead
        letter is written; `DeadLetterError` for the first one the server refuses."""
        args: list[Any] = [self.group, DEFAULT_DEDUPE_MS]
        for eid, fields, err in poison:
            dead = _e.dead_letter_fields(
                eid, fields, err, stream=self.stream, group=self.group, name=self.name
            )
            args += [eid, 2 * len(dead), *(x for pair in dead.items() for x in pair)]
        record = f"{self.dead_letter}:moved:{_token()}"
        moved, refusal = yield from BURY.run([self.stream, self.dead_letter, record], args)
        if int(moved) < len(poison):
            eid = poison[int(moved)][0]
            raise DeadLetterError(
                f"cannot move poison entry {eid} of stream {self.stream!r} to the dead-letter "
                f"stream {self.dead_letter!r}: {_e.entry_id(refusal)}; it stays pending, "
                "unacknowledged, and so do the entries read with it",
                entry_id=eid,
                dead_letter=self.dead_letter,
            )
