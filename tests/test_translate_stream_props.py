"""Properties of stream translation: any chunking of any recorded stream, into any format, gives
the same bytes; random bytes in give our StreamError or nothing, never a foreign exception."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from minagent.providers import ADAPTERS, translate_stream
from minagent.wire.errors import WireError
from tests.budget import scaled

from .test_provider_recordings import STREAMS, _provider, _rel, _wire_bytes
from .test_translate_stream import INCONSISTENT

TARGETS = sorted(ADAPTERS)
USABLE = [p for p in STREAMS if _rel(p) not in INCONSISTENT]
_WHOLE: dict[tuple[str, str], bytes] = {}


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    cuts = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def whole(path_key: str, source: str, target: str, data: bytes) -> bytes:
    key = (path_key, target)
    if key not in _WHOLE:
        _WHOLE[key] = b"".join(translate_stream([data], source, target, unsupported="drop"))
    return _WHOLE[key]


@settings(max_examples=scaled(60), deadline=None)
@given(
    st.sampled_from(USABLE),
    st.sampled_from(TARGETS),
    st.lists(st.integers(0, 10**6), max_size=40),
)
def test_random_splits_give_the_same_bytes(path, target, cuts) -> None:  # type: ignore[no-untyped-def]
    """A recorded stream split at random points translates to exactly the bytes it gives whole."""
    source = _provider(path)
    assert source is not None
    data = _wire_bytes(path, source)
    out = b"".join(translate_stream(splits(data, cuts), source, target, unsupported="drop"))
    assert out == whole(_rel(path), source, target, data)


@settings(max_examples=scaled(60), deadline=None)
@given(
    st.sampled_from(USABLE),
    st.sampled_from(TARGETS),
    st.integers(0, 10**6),
    st.binary(min_size=1, max_size=8),
)
def test_corrupted_streams_raise_only_our_errors(path, target, at, junk) -> None:  # type: ignore[no-untyped-def]
    """Junk written into a recorded stream at a random point either still translates or raises
    one of our WireErrors (StreamError for the source's bytes); nothing else escapes."""
    source = _provider(path)
    assert source is not None
    data = _wire_bytes(path, source)
    at %= len(data) + 1
    bad = data[:at] + junk + data[at:]
    with contextlib.suppress(WireError):  # StreamError, UnsupportedError, ... are WireErrors
        b"".join(translate_stream([bad], source, target, unsupported="drop"))
