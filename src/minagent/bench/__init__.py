"""Benchmarks of minagent against the reference, pydantic models and real peers.

- `corpus`: the seeded corpus (families x sizes), generated in memory;
- `implementations`: everything timed, behind one encode / decode face, and the agreement check;
- `runner`: interleaved timing, memory (tracemalloc) and collector share (gc.callbacks);
- `report`: tables, JSON and the chart.

Used by ``minagent bench`` and by the pytest-benchmark suite in ``bench/``. Needs only msgspec;
orjson, pydantic, pydantic-ai, LangGraph and matplotlib are used when installed.
"""

__all__: list[str] = []
