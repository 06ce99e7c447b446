"""Save a conversation to a session log, "restart", and resume it where it left off."""

import tempfile
from pathlib import Path

from minagent import wire
from minagent.wire.stream import SessionLog

path = Path(tempfile.mkdtemp()) / "session.jsonl"

# First run: the agent appends each message as it happens.
with SessionLog(path) as log:
    log.append(wire.Message(role="system", content="You are terse."))
    log.append(
        [
            wire.Message(role="user", content="What is 2 + 2?"),
            wire.Message(role="assistant", content="4"),
        ]
    )

# Simulate a crash in the middle of the next append: half a line, no newline.
with path.open("ab") as f:
    f.write(b'{"role":"user","content":"And 3 +')

# Next run: find the torn tail, cut exactly it, resume with every complete message.
with SessionLog(path) as log:
    if log.tail is not None:
        print(f"repairing: {len(log.tail.data)} bytes cut at byte offset {log.tail.offset}")
        # > repairing: 33 bytes cut at byte offset 123
        log.repair()
    history = log.read()
    print(f"resumed with {len(history)} messages; last: {history[-1].text!r}")
    # > resumed with 3 messages; last: '4'
    log.append(wire.Message(role="user", content="And 3 + 3?"))
