"""minagent: one typed, lossless and fast message protocol for LLM agents.

- :mod:`minagent.types`: the seed's dataclass reference (standard library only).
- :mod:`minagent.wire`: the msgspec wire codec (JSON and MessagePack straight from bytes).

Importing :mod:`minagent` itself imports nothing heavy.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
