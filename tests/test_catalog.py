"""Skills and custom agents from the repository: the catalog, and targeted prompts."""

from pathlib import Path

import nbformat
import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.catalog import Catalog

from .harness.helpers import entries, eventually, finished, ready


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def repository(jp_root_dir):
    write(
        jp_root_dir / ".github/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews a change\n---\nSKILL-BODY-ONE: read the diff.\n",
    )
    write(
        jp_root_dir / ".claude/skills/lint/SKILL.md",
        "---\nname: lint\ndescription: Lints the code\n---\nRun the linter.\n",
    )
    write(
        jp_root_dir / ".github/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: [view, grep]\n---\n"
        "REVIEWER-PROMPT-MARKER You review code and report bugs.\n",
    )
    write(
        jp_root_dir / ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: the losing copy\n---\nIGNORED\n",
    )
    write(jp_root_dir / ".claude/agents/broken.md", "---\nname: [unclosed\n---\nbody\n")
    return jp_root_dir


def test_catalog_reads_both_sources_and_github_wins(repository):
    catalog = Catalog(repository).refresh()
    assert sorted(catalog.skills) == ["lint", "review"]
    assert catalog.skills["lint"].source == ".claude"
    reviewer = catalog.agents["reviewer"]
    assert (reviewer.source, reviewer.description, reviewer.tools) == (
        ".github",
        "Reviews code for bugs",
        ("view", "grep"),
    )
    assert reviewer.prompt == "REVIEWER-PROMPT-MARKER You review code and report bugs."
    assert len(catalog.problems) == 1 and "broken.md" in catalog.problems[0]


async def test_catalog_endpoint(api, repository):
    r = await api("carol", "GET", "catalog")
    assert r.code == 200
    assert [s["name"] for s in r.json["skills"]] == ["review", "lint"]
    assert [a["name"] for a in r.json["agents"]] == ["reviewer"]
    write(
        repository / ".github/skills/explain/SKILL.md",
        "---\nname: explain\ndescription: Explains\n---\nExplain.\n",
    )
    r = await api("carol", "GET", "catalog")
    assert "explain" in [s["name"] for s in r.json["skills"]], "refreshed on demand"
    assert (await api("dave", "GET", "catalog")).code == 403


@pytest.fixture
def room_config(copilot_config, repository):
    return copilot_config


async def test_custom_agent_prompt_runs_as_a_sub_agent(api, room, model):
    def script(request):
        if request.system.startswith("REVIEWER-PROMPT-MARKER"):
            return Reply("REVIEW-RESULT: add() subtracts.")
        if request.tool_results:
            return Reply("The reviewer reported: " + request.tool_results[-1])
        if 'agent_type "reviewer"' in request.prompt:
            return Reply(
                tool_calls=(
                    ToolCall(
                        "task",
                        {
                            "name": "rev",
                            "agent_type": "reviewer",
                            "description": "review the code",
                            "prompt": "Review calc.py",
                        },
                    ),
                )
            )
        return Reply("untargeted")

    model.script = script
    await ready(api, room)
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "check calc.py", "target": {"kind": "agent", "name": "reviewer"}},
    )
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    assert finished(room)[r.json["id"]]["state"] == "completed"
    sub = [q for q in model.requests if q.system.startswith("REVIEWER-PROMPT-MARKER")]
    assert sub, "the custom agent's own prompt is the sub-agent's system message"
    assert sorted(sub[0].tool_names) == ["grep", "view"]
    [subagent] = entries(room, "subagent")
    assert (subagent["name"], subagent["state"]) == ("reviewer", "success")
    replies = [e["body"] for e in entries(room, "assistant")]
    assert "REVIEW-RESULT: add() subtracts." not in replies, (
        "the sub-agent's own reply is not shown as the room agent's"
    )
    assert any(body.startswith("The reviewer reported: REVIEW-RESULT") for body in replies)


async def test_skill_prompt_is_expanded_when_its_turn_starts(api, room, model, repository):
    def script(request):
        if "hold" in request.prompt:
            return Reply("Holding " * 60, chunk_size=4, delay=0.03)
        return Reply("Reviewed.")

    model.script = script
    await ready(api, room)
    await api("alice", "POST", "prompts", body={"text": "hold the floor"})
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "look at my change", "target": {"kind": "skill", "name": "review"}},
    )
    assert room.document.queue.to_py()[1]["target"] == {"kind": "skill", "name": "review"}
    write(
        repository / ".github/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews a change\n---\nSKILL-BODY-TWO: newer steps.\n",
    )
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    [request] = [q for q in model.requests if "look at my change" in q.prompt]
    assert request.prompt.startswith("[bob]: look at my change")
    assert "SKILL-BODY-TWO" in request.prompt and "SKILL-BODY-ONE" not in request.prompt


async def test_prompt_for_a_vanished_skill_fails_clearly(api, room, model, repository):
    model.script = lambda request: Reply("never")
    await ready(api, room)
    (repository / ".github/skills/review/SKILL.md").unlink()
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "review", "target": {"kind": "skill", "name": "review"}},
    )
    await eventually(lambda: r.json["id"] in finished(room), timeout=10)
    outcome = finished(room)[r.json["id"]]
    assert outcome["state"] == "failed" and 'skill "review" is no longer' in outcome["reason"]
    assert not any("review" in q.prompt for q in model.requests)


def test_the_example_repository_offers_skills_and_an_agent():
    examples = Path(__file__).parent.parent / "examples" / "pairing-repo"
    catalog = Catalog(examples).refresh()
    assert catalog.problems == []
    assert sorted(catalog.skills) == ["explain", "review"]
    assert catalog.agents["test-writer"].tools == ("view", "grep", "glob", "create", "bash")
    nbformat.validate(nbformat.read(examples / "analysis.ipynb", as_version=4))
