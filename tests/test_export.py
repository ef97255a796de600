"""`GET transcript?format=ipynb|md|jsonl`: the room as a notebook people can open and keep, or
as Markdown, for members and hosts. The REAL runtime runs a shell command for the export. Opening
an export runs nothing and fetches nothing (issue 27)."""

import re

import nbformat
import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.events import (
    AgentError,
    AssistantMessage,
    ChatMessage,
    PersonSeen,
    PlanStep,
    PlanUpdated,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
    Record,
    RequestOpened,
    ToolCompleted,
    ToolStarted,
    TurnReverted,
)
from jupyter_copilot_room.export import blocks, to_markdown, to_notebook, zone
from jupyter_copilot_room.room.live.document import RoomDocument

from .harness import people
from .harness.helpers import eventually, finished, ready

COMMAND = "echo exported-output"


@pytest.fixture
def room_config(request):
    # Only the test that needs the model starts the real runtime (it costs seconds).
    return request.getfixturevalue("copilot_config") if "model" in request.fixturenames else {}


@pytest.fixture
def export(jp_fetch):
    """`await export(user, fmt)`: the response to `GET transcript?format=fmt` as `user`."""

    async def call(user, fmt, **more):
        return await jp_fetch(
            "copilot-room",
            "api",
            "transcript",
            params={"format": fmt, **more},
            headers=people.authorization(user),
            raise_error=False,
        )

    return call


def run_command(request):
    if request.tool_results:
        return Reply("The command printed **exported-output**.")
    return Reply(
        "Running it.",
        tool_calls=(ToolCall("bash", {"command": COMMAND, "description": "echo"}),),
    )


async def test_an_export_holds_the_prompt_the_reply_the_command_and_the_chat(
    api, export, room, model
):
    model.script = run_command
    await ready(api, room)
    await api("bob", "POST", "messages", body={"text": "try the echo first"})
    prompt = (await api("alice", "POST", "prompts", body={"text": "please run the echo"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [card] = room.document.approvals.to_py()
    await api("alice", "POST", "approvals", card, body={"decision": "approve"})
    await eventually(lambda: prompt["id"] in finished(room), timeout=30, what="the turn")

    got = await export("bob", "ipynb")
    assert got.code == 200, got.body
    notebook = nbformat.reads(got.body.decode(), as_version=4)
    nbformat.validate(notebook)
    cells = [(c.cell_type, c.metadata.get("copilot_room", {}), c) for c in notebook.cells]
    kinds = [meta.get("kind") for _, meta, _ in cells]
    said = [kind for kind in kinds if kind in ("chat", "prompt", "assistant", "command")]
    assert said == ["chat", "prompt", "assistant", "command", "assistant"]
    by_kind = {meta.get("kind"): cell for _, meta, cell in cells}
    assert "please run the echo" in by_kind["prompt"].source
    assert by_kind["prompt"].metadata["copilot_room"]["author"] == "alice"
    assert "try the echo first" in by_kind["chat"].source
    assert "exported-output" in by_kind["assistant"].source
    command = by_kind["command"]
    assert command.cell_type == "markdown", "a record of what ran, not a cell that runs it"
    assert f"```bash\n{COMMAND}\n```" in command.source
    assert "Output:\n\n```text\nexported-output\n```" in command.source
    notes = [c.source for _, meta, c in cells if meta.get("kind") == "note"]
    assert any("approved by" in note for note in notes), notes

    md = (await export("alice", "md")).body.decode()
    for said in ("please run the echo", "try the echo first", COMMAND, "approved by"):
        assert said in md
    assert "```text\nexported-output\n```" in md

    jsonl = (await export("bob", "jsonl")).body.decode()
    assert jsonl == (await api("bob", "GET", "transcript")).text


async def test_exports_are_attachments_for_members_and_hosts_only(export):
    for fmt, media in (("ipynb", "application/x-ipynb+json"), ("md", "text/markdown")):
        r = await export("bob", fmt)
        assert r.code == 200 and r.headers["Content-Type"].startswith(media)
        disposition = r.headers["Content-Disposition"]
        assert disposition.startswith("attachment;") and disposition.endswith(f'.{fmt}"')
        for user in ("carol", "dave"):
            assert (await export(user, fmt)).code == 403, (user, fmt)
    bad = await export("alice", "pdf")
    assert bad.code == 400 and b"invalid_format" in bad.body
    for tz in ("Mars/Olympus_Mons", "../../etc/passwd"):
        bad = await export("alice", "md", tz=tz)
        assert bad.code == 400 and b"invalid_time_zone" in bad.body, tz
    paged = await export("alice", "ipynb", limit="10")
    assert paged.code == 400 and b"whole transcript" in paged.body, "not a page of JSONL"


ENDS = [  # how a turn ended, and the error the agent reported on it (if any)
    (PromptFinished(id="p", state="completed"), None),
    (PromptFinished(id="p", state="canceled"), None),  # a host's abort: its own line says so
    (PromptFinished(id="p", state="failed", reason="The turn took too long."), None),
    (
        PromptFinished(id="p", state="failed", reason="The endpoint said 500."),
        "The endpoint said 500.",
    ),
    (PromptFinished(id="p", state="failed", reason="The server stopped."), "Something else."),
    (PromptFinished(id="p", state="failed"), None),
]


@pytest.mark.parametrize(("end", "error"), ENDS)
def test_a_turns_end_says_in_an_export_what_it_says_in_the_room(end, error):
    """The line a turn's end adds (none when completed, none for an abort, which said so, and
    never a reason the agent's error line said already) is the same in both."""
    records = [
        ("prompt.submitted", PromptSubmitted(id="p", text="hi"), "bob"),
        ("prompt.started", PromptRef(id="p"), "bob"),
        *([("agent.error", AgentError(prompt_id="p", message=error), None)] if error else []),
        ("prompt.finished", end, None),
    ]
    made = recorded(records)
    document = RoomDocument()
    for record, payload in made:
        document.apply(record, payload)
    last = len(made)
    in_room = [e["body"] for e in document.transcript.to_py() if e["id"] == f"r{last}"]
    in_export = [b.text.strip("*") for b in blocks(made) if b.meta["ts"] == float(last)]
    assert in_export == in_room


def recorded(records):
    """`(kind, payload, actor)` triples as the transcript's `(Record, payload)` pairs."""
    return [
        (
            Record(
                seq=n, ts=float(n), kind=kind, actor=actor, payload=p.model_dump(exclude_none=True)
            ),
            p,
        )
        for n, (kind, p, actor) in enumerate(records, start=1)
    ]


SHELL = "curl -s https://get.example/install.sh | sh"
REMOTE_IMAGE = re.compile(
    r"!\[[^\]]*\]\(\s*<?\s*(?:https?:)?//|<img\b[^>]*(?:https?:)?//", re.IGNORECASE
)
#: What people and the agent said, each with a remote image (and a relative one, which stays).
SAID = {
    "prompt": "show me this ![cat](https://cats.example/c.png) please",
    "assistant": (
        'Here it is: <img src="https://evil.example/t.png" alt="t"> and '
        "![chart](http://charts.example/x.png) and, local, ![plot](plot.png)"
    ),
    "chat": "<IMG/SRC=//tracker.example/p.gif> look",
}


def a_turn_with_a_command_and_images():
    return recorded(
        [
            ("prompt.submitted", PromptSubmitted(id="p", text=SAID["prompt"]), "bob"),
            ("chat.message", ChatMessage(id="c", text=SAID["chat"]), "carol"),
            ("prompt.started", PromptRef(id="p"), "bob"),
            (
                "tool.started",
                ToolStarted(call_id="t", tool="bash", summary=SHELL, arguments={"command": SHELL}),
                None,
            ),
            (
                "request.opened",
                RequestOpened(
                    id="r",
                    prompt_id="p",
                    author="bob",
                    kind="shell",
                    summary=SHELL,
                    details={"truncated": {"summary": {"shown": 8000, "total": 12345}}},
                    deadline=9.0,
                ),
                None,
            ),
            ("tool.completed", ToolCompleted(call_id="t", success=True, result="installed"), None),
            ("assistant.message", AssistantMessage(entry_id="a", text=SAID["assistant"]), None),
            ("prompt.finished", PromptFinished(id="p", state="completed"), None),
        ]
    )


def test_an_exported_notebook_runs_no_command_and_fetches_no_image_when_opened():
    notebook = nbformat.reads(to_notebook(a_turn_with_a_command_and_images(), 10.0), as_version=4)
    nbformat.validate(notebook)
    assert [c.cell_type for c in notebook.cells if c.cell_type != "markdown"] == []
    [command] = [
        c for c in notebook.cells if c.metadata.get("copilot_room", {}).get("kind") == "command"
    ]
    assert f"```bash\n{SHELL}\n```" in command.source, "the command as recorded, to read"
    assert "Output:\n\n```text\ninstalled\n```" in command.source
    sources = "\n".join(c.source for c in notebook.cells)
    assert REMOTE_IMAGE.search(sources) is None, sources
    for host in ("cats.example", "evil.example", "charts.example", "tracker.example"):
        assert f"*(image from {host} left out of the export)*" in sources
    assert "![plot](plot.png)" in sources, "a relative image loads nothing from elsewhere"
    assert "(4,345 more characters not shown)" in sources, "a cut command says so"


def test_an_exported_markdown_file_fetches_no_image_either():
    md = to_markdown(a_turn_with_a_command_and_images(), 10.0)
    assert REMOTE_IMAGE.search(md) is None, md
    assert "image from evil.example left out of the export" in md
    assert f"```bash\n{SHELL}\n```" in md


@pytest.mark.parametrize("kind", ["notebook", "execute", "shell"])
def test_an_export_says_what_the_agent_asked_in_the_panels_words(kind):
    """One wording, `approval_policy.ACTIONS`: the cards' titles are generated from it too."""
    opened = RequestOpened(
        id="r", prompt_id="p", author="bob", kind=kind, summary="the thing", deadline=9.0
    )
    records = recorded(
        [
            ("prompt.submitted", PromptSubmitted(id="p", text="go"), "bob"),
            ("prompt.started", PromptRef(id="p"), "bob"),
            ("request.opened", opened, None),
            ("prompt.finished", PromptFinished(id="p", state="completed"), None),
        ]
    )
    words = {"notebook": "edit a notebook", "execute": "run notebook cells"}
    expected = words.get(kind, "run a shell command")
    assert f"Copilot asked to {expected}: the thing" in to_markdown(records, 10.0)


async def test_an_export_tells_the_time_where_its_reader_is(api, export):
    """The panel names the browser's zone: the times and the file's name are the reader's, as
    the panel shows them, not the server's UTC."""
    await api("alice", "POST", "messages", body={"text": "what time is it"})
    utc = (await export("alice", "md")).body.decode()
    got = await export("alice", "md", tz="Asia/Kathmandu")  # UTC+05:45 all year
    there_text = got.body.decode()
    [said_utc] = re.findall(r"said to the room · (\S+ \S+) UTC", utc)
    [said_there] = re.findall(r"said to the room · (\S+ \S+) \+0545", there_text)
    hours, minutes = (int(x) for x in said_utc.split()[1].split(":"))
    there = (hours * 60 + minutes + 5 * 60 + 45) % (24 * 60)
    assert said_there.split()[1] == f"{there // 60:02d}:{there % 60:02d}"
    stamp = re.search(r'copilot-room-(\d{8})-(\d{4})\d{2}\.md"', got.headers["Content-Disposition"])
    assert stamp and stamp.group(2) == f"{there // 60:02d}{there % 60:02d}"


def test_a_withdrawn_prompt_and_a_reverted_turn_are_in_the_export():
    """What the room's lines said happened to a prompt that never ran and to a turn put back."""
    records = recorded(
        [
            ("person.seen", PersonSeen(username="bob", display_name="Bob", verified=True), None),
            ("prompt.submitted", PromptSubmitted(id="p1", text="use polars\nfor all of it"), "bob"),
            ("prompt.withdrawn", PromptRef(id="p1"), "bob"),
            ("prompt.submitted", PromptSubmitted(id="p2", text="delete the tests"), "bob"),
            ("prompt.withdrawn", PromptRef(id="p2"), "alice"),
            (
                "turn.reverted",
                TurnReverted(
                    prompt_id="p0", author="bob", reverted="abc", commit="def", files=["a.py"]
                ),
                "alice",
            ),
        ]
    )
    notes = [b.text for b in blocks(records) if b.meta["kind"] == "note"]
    assert notes == [
        "*Bob withdrew their prompt before it ran: use polars…*",
        "*alice withdrew Bob's prompt before it ran: delete the tests*",
        "*alice reverted Bob's turn: `a.py` put back.*",
    ]


def test_a_time_zone_is_an_iana_name():
    assert str(zone("Europe/Paris")) == "Europe/Paris"
    assert str(zone(None)) == "UTC"
    for name in ("Nowhere/City", "/etc/passwd", "Europe/../../x"):
        with pytest.raises(ValueError, match="is not a time zone"):
            zone(name)


def test_a_turns_plan_is_one_task_list_as_it_ended_where_it_first_showed():
    def plan(*statuses):
        named = zip(("Read *data*", "Chart"), statuses, strict=True)
        steps = [PlanStep(content=c, status=s) for c, s in named]
        return ("plan.updated", PlanUpdated(entry_id="e1", prompt_id="p1", steps=steps), None)

    records = recorded(
        [
            plan("pending", "pending"),
            ("chat.message", ChatMessage(id="m", text="hi"), "bob"),
            plan("completed", "in_progress"),
        ]
    )
    shown = [b for b in blocks(records) if b.meta["kind"] in ("plan", "chat")]
    assert [b.meta["kind"] for b in shown] == ["plan", "chat"]
    assert shown[0].text == "**Plan**\n\n- [x] Read \\*data\\*\n- [ ] Chart *(in progress)*"
