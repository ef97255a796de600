"""A client that stops reading (a suspended laptop) never delays the others: its outbox is
bounded, then its socket is closed (4008) and, reconnecting, it gets the current state."""

import asyncio
import time

import pytest
from pycrdt import Array

from .harness import people
from .harness.helpers import eventually
from .harness.stalled import StalledClient

CAP = 64 * 1024
CHUNK = 4096  # bytes of reply text a server write appends
AFTER = 50  # writes after the stalled client was closed, to see the others still served


@pytest.fixture
def room_config():
    return {"client_buffer_bytes": CAP}


def chunk(k: int) -> str:
    return f"{k:06d}".ljust(CHUNK, "x")


async def test_a_client_that_stops_reading_is_closed_and_never_delays_the_others(
    api, connect, room, agent, jp_http_port, jp_base_url
):
    bob = await connect("bob")
    carol = await StalledClient.connect(
        jp_http_port, f"{jp_base_url}copilot-room/ws", people.authorization("carol")
    )
    await eventually(
        lambda: "carol" in room.records.sync.connected() and "carol" in bob.participants
    )
    await api("bob", "POST", "prompts", body={"text": "wait"})
    await eventually(lambda: len(bob.replies()) == 1, what="the reply to stream into")
    entry = f"msg-{agent.turns[0].prompt_id}"

    # Each write appends a chunk that starts with its number; Bob's copy of the reply says when
    # each arrived (an observer may not read the document, but it gets the inserted text).
    arrived: dict[int, float] = {}
    transcript = bob.doc.get("transcript", type=Array)
    reply = next(e for e in transcript if e["kind"] == "assistant")["body"]

    def seen(event):
        for change in event.delta:
            text = change.get("insert", "")
            for start in range(0, len(text), CHUNK):
                arrived.setdefault(int(text[start : start + 6]), time.monotonic())

    reply.observe(seen)
    written: list[float] = []
    closed_at = None
    while closed_at is None or len(written) < closed_at + AFTER:
        written.append(time.monotonic())
        room.document.stream(entry, chunk(len(written) - 1))
        await asyncio.sleep(0.002)
        if closed_at is None and "carol" not in room.records.sync.connected():
            closed_at = len(written)
        assert len(written) < 2000, "the stalled client was never closed"

    code, reason, frames = await carol.read_to_close()
    carol.close()
    assert (code, reason) == (4008, "You fell behind the room; reconnecting.")
    await eventually(lambda: room.records.sync.fell_behind == 1, what="the count for the metrics")
    assert frames < closed_at, "the frames past the cap were dropped, not sent"

    await eventually(lambda: len(arrived) == len(written), what="bob to get every write")
    # Waiting on the stalled socket would hold back every write before the close; one write
    # late on a loaded machine (a neighbour test, a collection) is not that.
    lags = sorted(arrived[k] - t for k, t in enumerate(written))
    median, p90 = lags[len(lags) // 2], lags[len(lags) * 9 // 10]
    assert median < 0.05 and p90 < 0.5, f"bob lagged: {lags[-10:]}"

    # Reconnecting, the client gets the whole current state (some MB, far above the cap: only
    # what waits behind a batch still on its way counts).

    again = await connect("carol")
    await eventually(
        lambda: again.snapshot()["transcript"] == room.document.snapshot()["transcript"],
        what="the reconnected client to hold the current state",
    )
    agent.release.set()
