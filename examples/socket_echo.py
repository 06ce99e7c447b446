"""Send messages as MessagePack frames to an asyncio echo server on 127.0.0.1 and read them back."""

import asyncio

from minagent import wire
from minagent.wire.stream import receive, send


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    async for message in receive(reader):
        await send(writer, message)
    writer.close()


async def main() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    host, port = server.sockets[0].getsockname()[:2]
    reader, writer = await asyncio.open_connection(host, port)
    messages = [wire.Message(role="user", content=f"message {i}") for i in range(1000)]
    await send(writer, messages)  # one frame per message, one write
    writer.write_eof()
    echoed = [m async for m in receive(reader)]
    print(f"sent {len(messages)}, got back {len(echoed)}, equal: {echoed == messages}")
    # > sent 1000, got back 1000, equal: True
    writer.close()
    server.close()
    await server.wait_closed()


asyncio.run(main())
