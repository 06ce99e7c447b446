"""The chunked lossless path: any mix of known and odd messages, across chunk boundaries."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import _fallback


def _message(i: int, odd: int) -> dict[str, Any]:
    if odd == 1:
        return {"role": "user", "content": f"m{i}", "id": f"msg_{i}"}
    if odd == 2:
        return {"role": "assistant", "content": [{"type": "future_block", "n": i}]}
    return {"role": "user", "content": f"m{i}"}


@given(st.lists(st.sampled_from([0, 0, 0, 0, 1, 2]), max_size=3 * _fallback.CHUNK + 5))
def test_any_mix_decodes_and_encodes_like_one_message_at_a_time(kinds: list[int]) -> None:
    """Decoding a list equals decoding each element alone; encoding gives the same bytes back."""
    value = [_message(i, kind) for i, kind in enumerate(kinds)]
    for fmt, data in (
        (wire.json, json.dumps(value, separators=(",", ":")).encode()),
        (wire.msgpack, msgspec.msgpack.encode(value)),
    ):
        decoded = fmt.decode(data)
        one_by_one = [fmt.decode(fmt.encode(m), type=wire.Message) for m in decoded]
        assert decoded == one_by_one
        assert [wire.json.decode(json.dumps(m).encode(), type=wire.Message) for m in value] == (
            decoded
        )
        assert fmt.encode(decoded) == data


_EDGES = [0, 1, 2, 15, 16, 17, 32_767, 32_768, 65_535, 65_536, 65_537]


def _frames_as_one_array(n: int) -> None:
    items = list(range(min(n, 40))) + [0] * max(0, n - 40)
    assert (
        msgspec.json.decode(_fallback.join_array([msgspec.json.encode(i) for i in items], True))
        == items
    )
    assert (
        msgspec.msgpack.decode(
            _fallback.join_array([msgspec.msgpack.encode(i) for i in items], False)
        )
        == items
    )


@pytest.mark.parametrize("n", _EDGES)
def test_join_array_frames_every_header_edge(n: int) -> None:
    """Every count at the edge of a MessagePack array header (1, 3 or 5 bytes; a signed 16-bit
    count would fail from 32,768 on) is framed as one well-formed array in both formats."""
    _frames_as_one_array(n)


@given(st.integers(0, 300))
def test_join_array_frames_any_count(n: int) -> None:
    """join_array frames n encoded elements as one well-formed array in both formats."""
    _frames_as_one_array(n)
