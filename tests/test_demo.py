"""Demo mode shows the whole product: each thing the demo model's intro offers, tried in a copy of
`examples/pairing-repo` through the REAL Copilot runtime (the demo model is ours, the runtime and
the room are real), with no login and no provider."""

import json
import shutil
from pathlib import Path

import pandas
import pytest

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.demo import DemoScript
from jupyter_copilot_room.kernel.summaries import attach_summaries

from .harness.helpers import entries, eventually, finished, ready

EXAMPLE = Path(__file__).parents[1] / "examples" / "pairing-repo"


@pytest.fixture
def room_config(jp_root_dir, monkeypatch):
    for variable in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    shutil.copytree(EXAMPLE, jp_root_dir, dirs_exist_ok=True)
    return {"agent_class": CopilotAgent}


async def prompt(api, room, text, target=None):
    r = await api("alice", "POST", "prompts", body={"text": text, "target": target})
    assert r.code == 202, r.text
    return r.json["id"]


async def card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="a card")
    [(request_id, shown)] = room.document.approvals.to_py().items()
    return request_id, shown


async def done(room, prompt_id):
    await eventually(lambda: prompt_id in finished(room), timeout=30, what="the turn to end")
    assert finished(room)[prompt_id]["state"] == "completed", finished(room)[prompt_id]
    return entries(room, "assistant")[-1]["body"]


async def test_the_intro_lists_exactly_what_the_demo_does(api, room):
    await ready(api, room)
    assert room.document.meta.get("agent") == "demo model"
    reply = await done(room, await prompt(api, room, "hello"))
    for offer in (
        "**edit the notebook**",
        "**run the notebook**",
        "**fix the bug in stats.py**",
        "`/review stats.py`",
        "`@test-writer median`",
        "**run a command**",
        "**ask me a question**",
    ):
        assert offer in reply


async def test_a_prompt_the_demo_cannot_answer_gets_one_line_not_the_whole_intro(api, room):
    await ready(api, room)
    reply = await done(room, await prompt(api, room, "What is the capital of France?"))
    assert reply.startswith("I am the demo model") and "\n" not in reply
    assert "**edit the notebook**" in reply and "**Demo mode.**" not in reply
    asked = await done(room, await prompt(api, room, "what can you do?"))
    assert asked.startswith("**Demo mode.**")


async def test_the_demo_edits_the_notebook_after_approval(api, room, jp_root_dir):
    await ready(api, room)
    prompt_id = await prompt(api, room, "please edit the notebook")
    for added in ("median([1, 2, 3, 4])", "## An even number of values"):
        request_id, shown = await card(room)
        assert shown["kind"] == "notebook" and "analysis.ipynb" in shown["summary"]
        assert added in shown["details"]["diff"]
        r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
        assert r.code == 200
        await eventually(lambda r=request_id: r not in room.document.approvals, timeout=30)
    assert "Copilot" in await done(room, prompt_id)
    cells = json.loads((jp_root_dir / "analysis.ipynb").read_text())["cells"]
    assert [c["cell_type"] for c in cells[-2:]] == ["markdown", "code"]
    assert "median([1, 2, 3, 4])" in "".join(cells[-1]["source"])
    for cell in cells[-2:]:
        provenance = cell["metadata"]["copilot_room"]
        assert (provenance["author"], provenance["prompt_id"]) == ("alice", prompt_id)


async def test_the_demo_runs_a_cell_of_the_notebook_after_approval(api, room, jp_root_dir):
    await ready(api, room)
    prompt_id = await prompt(api, room, "run the notebook")
    request_id, shown = await card(room)
    assert shown["kind"] == "execute" and "analysis.ipynb" in shown["summary"]
    assert "median(times)" in shown["details"]["code"]
    await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    reply = await done(room, prompt_id)
    assert "execution count 1" in reply and "(156.5, " in reply
    said = [e["body"] for e in entries(room, "assistant")]
    assert "I'll read `analysis.ipynb` first, then run its cells." in said, said
    cells = json.loads((jp_root_dir / "analysis.ipynb").read_text())["cells"]
    [result] = cells[1]["outputs"]
    assert "".join(result["data"]["text/plain"]).startswith("(156.5, ")
    assert cells[1]["metadata"]["copilot_room"]["ran"]["author"] == "alice"


async def test_the_demo_fixes_a_file_from_its_diff(api, room, jp_root_dir):
    await ready(api, room)
    prompt_id = await prompt(api, room, "fix the bug in stats.py")
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("write", "stats.py")
    assert shown["details"]["diff"].startswith("diff --git a/stats.py b/stats.py\n--- a/stats.py\n")
    assert "+        return (ordered[middle - 1] + ordered[middle]) / 2" in shown["details"]["diff"]
    assert "ordered[middle - 1]" not in (jp_root_dir / "stats.py").read_text()
    await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    await done(room, prompt_id)
    fixed = (jp_root_dir / "stats.py").read_text()
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in fixed
    assert "a bug to find together" not in fixed, "the comment that pointed at the bug goes too"

    # The demo answers the file as it is now (issue 42): fixed, there is nothing to change.
    again = await done(room, await prompt(api, room, "fix the bug in stats.py"))
    assert "fixed already" in again and not room.document.approvals.to_py()
    assert (jp_root_dir / "stats.py").read_text() == fixed
    review = DemoScript(jp_root_dir)._review(fixed)
    assert "**Bug:**" not in review and "No bug left in `median`" in review


async def test_the_readmes_with_df_prompt_is_answered_about_that_frame(api, room, jp_root_dir):
    """`%%copilot --with df` sends the person's words and, after them, the frame's summary
    (which names the notebook): the demo answers the words, about the frame."""
    notebooks = {p.name: p.read_bytes() for p in jp_root_dir.glob("*.ipynb")}
    await ready(api, room)
    frame = pandas.DataFrame({"minutes": [150, 163, 120, 171]})
    asked = attach_summaries("Why does the median of this frame look wrong?", {"df": frame})
    reply = await done(room, await prompt(api, room, asked))
    assert reply.startswith("You attached `df` from your notebook")
    assert "**fix the bug in stats.py**" in reply and "Demo mode" not in reply
    assert not room.document.approvals.to_py()
    assert {p.name: p.read_bytes() for p in jp_root_dir.glob("*.ipynb")} == notebooks

    asked = attach_summaries("fix the bug in stats.py", {"df": frame})
    await prompt(api, room, asked)
    _, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("write", "stats.py")


async def test_a_skill_reviews_the_file_it_names(api, room):
    await ready(api, room)
    prompt_id = await prompt(api, room, "stats.py", {"kind": "skill", "name": "review"})
    request_id, shown = await card(room)  # the runtime asks before it reads a file
    assert (shown["kind"], shown["summary"]) == ("read", "stats.py")
    await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    reply = await done(room, prompt_id)
    assert "**Bug:** `median`" in reply
    assert [t["tool"] for t in entries(room, "tool")] == ["view"]
    assert [a["request_kind"] for a in entries(room, "permission")] == ["read"]


async def test_a_custom_agent_works_as_a_sub_agent(api, room):
    await ready(api, room)
    prompt_id = await prompt(api, room, "median", {"kind": "agent", "name": "test-writer"})
    reply = await done(room, prompt_id)
    [subagent] = entries(room, "subagent")
    assert (subagent["name"], subagent["state"]) == ("test-writer", "success")
    assert reply.startswith("The custom agent reported:") and "test_even_length" in reply


async def test_a_refusal_is_understood(api, room):
    await ready(api, room)
    prompt_id = await prompt(api, room, "stats.py", {"kind": "skill", "name": "review"})
    request_id, _ = await card(room)
    await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    assert (await done(room, prompt_id)).startswith("Understood: that was not approved")


async def test_the_demo_acknowledges_a_steering_message(api, room):
    await ready(api, room)
    prompt_id = await prompt(api, room, "run a command")
    request_id, _ = await card(room)
    steer = {"text": "only the top level, please"}
    assert (await api("alice", "POST", "prompts", prompt_id, "steer", body=steer)).code == 201
    await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    await done(room, prompt_id)
    # The runtime reads the steering at the model's next request after it arrived: the one after
    # the command, or (on a loaded machine) one more before the turn ends.
    replies = [e["body"] for e in entries(room, "assistant")]
    noted = "Noted, alice: “only the top level, please”."
    assert any(reply.startswith(noted) for reply in replies), replies


def test_the_demo_never_takes_jupyters_save_in_progress_for_the_notebook(tmp_path):
    """Jupyter's atomic save writes `.~analysis.ipynb` beside the notebook for a moment; the
    demo once picked it (pathlib's `*` matches a leading dot) and could not read it."""
    from jupyter_copilot_room.agent.demo import DemoScript

    (tmp_path / "analysis.ipynb").write_text("{}")
    (tmp_path / ".~analysis.ipynb").write_text("{}")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "a.ipynb").write_text("{}")
    assert DemoScript(tmp_path)._first_notebook() == "analysis.ipynb"
