"""Skills and custom agents from the repository: the catalog, and targeted prompts."""

import logging
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


@pytest.fixture
def logged(caplog, jp_serverapp):
    """Every record the server logs at INFO and above, its own loggers' too (they do not
    propagate to the root)."""
    caplog.set_level(logging.INFO)
    jp_serverapp.log.addHandler(caplog.handler)
    yield caplog  # its `records` are the phase's: read them in the test
    jp_serverapp.log.removeHandler(caplog.handler)


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ({"kind": "skill", "name": "../../../../etc/passwd"}, "invalid_target"),
        ({"kind": "agent", "name": "../reviewer"}, "invalid_target"),
        ({"kind": "skill", "name": "review/../../SKILL"}, "invalid_target"),
        ({"kind": "skill", "name": "review\n"}, "invalid_target"),
        ({"kind": "skill", "name": "nope"}, "unknown_target"),
        ({"kind": "agent", "name": "review"}, "unknown_target"),  # a skill, not an agent
    ],
)
async def test_a_prompt_for_a_bad_skill_name_is_a_clear_400_and_records_nothing(
    api, room, logged, target, code
):
    await ready(api, room)
    await api("bob", "GET", "room")  # bob's arrival is recorded once, before
    before = room.transcript.read_text()
    r = await api("bob", "POST", "prompts", body={"text": "read it", "target": target})
    assert (r.code, r.json["error"]) == (400, code), r
    assert "GET catalog" in r.json["message"] and "etc/passwd" not in r.json["message"]
    assert room.transcript.read_text() == before, "nothing recorded"
    assert room.document.queue.to_py() == []
    assert [record for record in logged.records if record.exc_info] == [], "no traceback"


async def test_prompt_for_a_skill_gone_before_its_turn_fails_clearly(
    api, room, model, repository, logged
):
    def script(request):
        if "hold" in request.prompt:
            return Reply("Holding " * 60, chunk_size=4, delay=0.03)
        return Reply("never")

    model.script = script
    await ready(api, room)
    await api("alice", "POST", "prompts", body={"text": "hold the floor"})
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "look at it", "target": {"kind": "skill", "name": "review"}},
    )
    assert r.code == 202, r
    (repository / ".github/skills/review/SKILL.md").unlink()
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    outcome = finished(room)[r.json["id"]]
    assert outcome["state"] == "failed" and 'skill "review" is no longer' in outcome["reason"]
    assert not any("look at it" in q.prompt for q in model.requests)
    assert [record for record in logged.records if record.exc_info] == [], "no traceback"
    [said] = [rec.getMessage() for rec in logged.records if "could not start" in rec.getMessage()]
    assert 'The skill "review" is no longer in the repository.' in said


def test_a_file_whose_name_is_a_path_is_not_offered(repository):
    write(repository / ".github/agents/sneaky.md", "---\nname: ../../etc/passwd\n---\nbody\n")
    catalog = Catalog(repository).refresh()
    assert "../../etc/passwd" not in catalog.agents
    assert any("sneaky.md" in problem and "not a name" in problem for problem in catalog.problems)


def test_the_example_repository_offers_skills_and_an_agent():
    examples = Path(__file__).parent.parent / "examples" / "pairing-repo"
    catalog = Catalog(examples).refresh()
    assert catalog.problems == []
    assert sorted(catalog.skills) == ["explain", "review"]
    assert catalog.agents["test-writer"].tools == ("view", "grep", "glob", "create", "bash")
    nbformat.validate(nbformat.read(examples / "analysis.ipynb", as_version=4))
