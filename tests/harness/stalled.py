"""A websocket client over a raw TCP socket that can stop reading, as a suspended laptop does.

Its receive buffer is made small before it connects, so the server's writes pile up at once
when it stops reading. The handshake and framing are written out here (RFC 6455, the little a
client needs) because ordinary clients always read.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct

from pycrdt import Doc, create_sync_message


class StalledClient:
    """Connects, asks for the room's state, and then reads nothing until `read_to_close`."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buffer = b""

    @classmethod
    async def connect(cls, port: int, path: str, headers: dict[str, str]) -> StalledClient:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: small window
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        await loop.sock_connect(sock, ("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        await loop.sock_sendall(sock, ("\r\n".join(lines) + "\r\n\r\n").encode())
        client = cls(sock)
        while b"\r\n\r\n" not in client.buffer:
            client.buffer += await client._recv()
        head, client.buffer = client.buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head
        await loop.sock_sendall(sock, _masked(create_sync_message(Doc())))
        return client

    async def read_to_close(self, timeout: float = 10) -> tuple[int, str, int]:
        """Read everything the server queued, up to its close frame: (code, reason, binary
        frames read)."""
        frames = 0
        async with asyncio.timeout(timeout):
            while True:
                opcode, payload = await self._frame()
                if opcode == 0x8:
                    (code,) = struct.unpack("!H", payload[:2])
                    return code, payload[2:].decode(), frames
                frames += opcode == 0x2

    def close(self) -> None:
        self.sock.close()

    async def _recv(self) -> bytes:
        data = await asyncio.get_running_loop().sock_recv(self.sock, 65536)
        if not data:
            raise ConnectionError("the server closed the connection without a close frame")
        return data

    async def _take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += await self._recv()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    async def _frame(self) -> tuple[int, bytes]:
        first, second = await self._take(2)
        length = second & 0x7F  # server frames are never masked
        if length == 126:
            (length,) = struct.unpack("!H", await self._take(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await self._take(8))
        return first & 0x0F, await self._take(length)


def _masked(payload: bytes) -> bytes:
    """One final binary frame, masked as a client's must be."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x82, 0x80 | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", 0x82, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x82, 0x80 | 127, length)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
