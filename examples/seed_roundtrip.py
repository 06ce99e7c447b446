import json

from minagent.types import Message, ToolCall

conversation = [
    Message(role="system", content="你是一个只做加法的助手。"),
    Message(role="user", content="1 + 2 等于多少？"),
    Message(
        role="assistant",
        content="",
        tool_calls=[ToolCall(id="call_1", name="add", arguments={"a": 1, "b": 2})],
    ),
    Message(role="tool", content="3", tool_call_id="call_1"),
    Message(role="assistant", content="结果是 3。"),
]

wire = [m.to_wire() for m in conversation]
payload = json.dumps(wire, ensure_ascii=False, sort_keys=True)
reloaded = [Message.from_wire(w) for w in json.loads(payload)]
replayed = [m.to_wire() for m in reloaded]

assert replayed == wire, "往返后 wire 结构不一致"
assert reloaded == conversation, "往返后对象不一致"
print(payload)
"""
[{"content": "你是一个只做加法的助手。", "role": "system"}, {"content": "1 + 2 等于多少？", "role": "user"}, {"content": [{"id": "call_1", "input": {"a": 1, "b": 2}, "name": "add", "type": "tool_use"}], "role": "assistant"}, {"content": "3", "role": "tool", "tool_call_id": "call_1"}, {"content": "结果是 3。", "role": "assistant"}]
"""
print("roundtrip OK:", len(wire), "messages")
# > roundtrip OK: 5 messages
