"""What the demo model says: a room that works out of the box, with no Copilot login.

Demo mode runs the REAL Copilot runtime against the scripted model server on 127.0.0.1 with this
script, so a fresh `jupyter lab` (try `examples/pairing-repo`) shows everything the room does: a
notebook edit in the open notebook (the agent's cursor, the provenance badge), a run of a
notebook cell in its kernel, a file edit with
its diff, a skill, a custom agent as a sub-agent, a shell command that waits for approval, and a
question. It is labelled "demo model" everywhere. Each path is a few steps keyed on the tool the
model called last; the tools are the runtime's own and the room's notebook tools.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from .scripted_model import ModelRequest, Reply, ToolCall, text_of

DEMO_MODEL = "demo-model"
DEMO_LABEL = "demo model"
DEMO_NOTE = (
    "Demo mode: no Copilot login or provider is configured on this server, so a scripted demo "
    "model answers, through the real Copilot runtime."
)

INTRO = """\
**Demo mode.** No Copilot login was found on this server, so a small scripted *demo model* is
answering, through the real Copilot runtime. Everything else is real: the shared queue, the
approvals, the notebook edits, the transcript. It can do exactly these (try them in
`examples/pairing-repo`):

- **edit the notebook**: I add two cells to the notebook (the one you name, or the
  repository's first), as a collaborator you can watch, each after an approval card with its
  diff; each cell carries a "Copilot" badge that leads back to the prompt.
- **run the notebook**: I run the notebook's first code cell in its kernel (one is started if
  nobody has it open), after an approval card with the code; everyone sees the output appear.
- **fix the bug in stats.py** (or another file you name): a file edit, approved from its diff.
- **a skill**: type `/` and pick one, e.g. `/review stats.py` reviews that file (once you
  let me read it).
- **a custom agent**: type `@` and pick one, e.g. `@test-writer median`; it works as a
  sub-agent and I report what it found.
- **run a command**: I ask to list the repository's files; the person who asked (or a host)
  approves or rejects it.
- **ask me a question**: I ask *you* something, with choices.
- **steer me**: while your prompt runs (say, while a card waits), press **Steer** beside it
  and tell me something; I acknowledge it before I go on.

To use Copilot itself, start the server with `COPILOT_GITHUB_TOKEN` set (or log in with the
Copilot CLI), or configure your own model with `c.CopilotRoom.provider`."""

#: What nothing else matches gets: one line, not the whole of INTRO (which asking for it gets).
UNKNOWN = (
    "I am the demo model, so I can't answer that. I can **edit the notebook**, **run the "
    "notebook**, **fix the bug in stats.py**, `/review stats.py`, `@test-writer median`, **run a "
    "command** and **ask you a question**; say **help** for what each does."
)
ASKED_FOR_HELP = re.compile(
    r"^\W*(hello|hi|hey|help|intro)\b|\bwhat can you do\b|\bwho are you\b|\bdemo\b"
)

#: The room's system note says this; a sub-agent's system message (a custom agent's) does not.
ROOM_MARKER = "working in a shared room"
#: The example's planted bug (examples/pairing-repo/stats.py): its whole line, the comment that
#: points at it included; and its fix, by which a file that has it is fixed already.
MEDIAN_BUG = re.compile(r"^    return ordered\[middle\].*$", re.MULTILINE)
MEDIAN_FIXED = "(ordered[middle - 1] + ordered[middle]) / 2"
MEDIAN_FIX = (
    f"    if len(ordered) % 2 == 0:\n        return {MEDIAN_FIXED}\n    return ordered[middle]"
)
#: The cells the notebook edit adds, in order: a code cell at the end, then a note above it
#: (while the note waits for approval, the agent's cursor rests in the code cell).
DEMO_CELLS = (
    ("code", "median([1, 2, 3, 4])  # 2.5 is right; stats.median says 3"),
    ("markdown", "## An even number of values\nThe median of 1, 2, 3, 4 is 2.5."),
)
RUN_ASKED = re.compile(r"\brun\b", re.IGNORECASE)  # "run the notebook": read it, then run a cell
NOT_APPROVED = re.compile(r"reject|denied|declined|not approved|nobody answered", re.IGNORECASE)
SKILL = re.compile(r'<skill-context name="([^"]+)">')
AGENT = re.compile(r'custom agent "([^"]+)"')
STEERING = re.compile(r"\[([^\]]+)\] \(steering\): ([^\n]*)")
#: Where `%%copilot --with` (kernel/summaries.py, `attach_summaries`) starts what it attached:
#: the person's own words come before it, and only they choose what the demo does.
ATTACHED = re.compile(r"\n\s*Attached from the notebook \(summaries, not the data\):")
ATTACHED_NAME = re.compile(r"^\s*`([^`]+)`:", re.MULTILINE)


class DemoScript:
    """The demo model's script for a repository (paths the runtime's tools take are absolute)."""

    def __init__(self, repository: Path):
        self.repository = repository

    def __call__(self, request: ModelRequest) -> Reply:
        reply = self._answer(request)
        if ROOM_MARKER in request.system and (steered := steering(request)) is not None:
            who, said = steered
            note = f"Noted, {who}: “{said[:200]}”. I take it into account from here."
            reply = replace(reply, text=f"{note}\n\n{reply.text}".strip())
        return reply

    def _answer(self, request: ModelRequest) -> Reply:
        if ROOM_MARKER not in request.system:
            return self._sub_agent()
        if request.tool_results:
            return self._after_tool(request)
        prompt = request.prompt
        asked = re.sub(r"^\[[^\]]+\]:\s*", "", prompt.split("<skill-context")[0]).strip()
        if skill := SKILL.search(prompt):
            return self._skill(skill.group(1), asked)
        if agent := AGENT.search(prompt):
            request_text = prompt.split("Request:", 1)[-1].strip()
            return Reply(
                f"I'll hand this to the custom agent **{agent.group(1)}**.",
                tool_calls=(
                    ToolCall(
                        "task",
                        {
                            "name": agent.group(1),
                            "agent_type": agent.group(1),
                            "description": f"{agent.group(1)} for the room",
                            "prompt": request_text,
                        },
                    ),
                ),
            )
        asked, attached = _own_words(asked)
        text = asked.lower()
        if re.search(r"\b(notebook|cell|ipynb)\b|\.ipynb", text):
            return self._read_notebook(asked)
        if re.search(r"\b(fix|edit|change)\b", text):
            return self._edit_file(asked)
        if re.search(r"\b(run|command|shell|ls)\b", text):
            return Reply(
                "I'll list the files in the repository. That needs approval in the room.",
                tool_calls=(
                    ToolCall(
                        "bash", {"command": "ls -la", "description": "List the repository's files"}
                    ),
                ),
            )
        if attached and not re.search(r"\b(ask|question|choose)\b", text):
            return Reply(_about_attached(asked, attached))
        if re.search(r"\b(ask|question|choose)\b", text):
            return Reply(
                tool_calls=(
                    ToolCall(
                        "ask_user",
                        {
                            "question": "Which part of the room should we try next?",
                            "choices": ["Edit the notebook", "Run a command", "Nothing, thanks"],
                            "allow_freeform": True,
                        },
                    ),
                )
            )
        return Reply(INTRO if ASKED_FOR_HELP.search(text) else UNKNOWN)

    # -- the paths -------------------------------------------------------------------------------

    def _read_notebook(self, asked: str) -> Reply:
        path = self._named(asked, ".ipynb") or self._first_notebook()
        if path is None:
            return Reply("There is no notebook in this repository for me to edit.")
        then = "run its cells" if RUN_ASKED.search(asked) else "add a cell to it"
        return Reply(
            f"I'll read `{path}` first, then {then}.",
            tool_calls=(ToolCall("notebook_read", {"path": path}),),
        )

    def _edit_file(self, asked: str) -> Reply:
        path = self._named(asked, "")
        if path is None:
            return Reply("Name the file to edit, e.g. *fix the bug in stats.py*.")
        text = (self.repository / path).read_text(encoding="utf-8", errors="replace")
        if MEDIAN_FIXED in text:  # as the file is now, not as the demo first found it
            return Reply(
                f"`{path}` is fixed already: `median` averages the two middle values of an even "
                "number of them. Nothing to change."
            )
        if (bug := MEDIAN_BUG.search(text)) is not None:
            old, new, why = bug.group(), MEDIAN_FIX, "the median of an even number of values"
        else:
            first = text.splitlines()[0] if text else ""
            old, new, why = first, f"# Edited by the demo model\n{first}", "a note at the top"
        return Reply(
            f"I'll fix {why} in `{path}`. The edit waits for approval, with its diff.",
            tool_calls=(
                ToolCall(
                    "edit",
                    {"path": str(self.repository / path), "old_str": old, "new_str": new},
                ),
            ),
        )

    def _skill(self, name: str, asked: str) -> Reply:
        path = self._named(asked, "")
        if path is None:
            return Reply(
                f"I would follow the **{name}** skill; name a file for it, e.g. `/{name} stats.py`."
            )
        return Reply(
            f"Following the **{name}** skill: I'll read `{path}` first.",
            tool_calls=(ToolCall("view", {"path": str(self.repository / path)}),),
        )

    def _sub_agent(self) -> Reply:
        """A custom agent's own turn (its prompt is the system message): it proposes tests."""
        return Reply(
            "Proposed tests for `median` (I did not write the file):\n\n"
            "```python\nfrom stats import median\n\n\n"
            "def test_odd_length():\n    assert median([3, 1, 2]) == 2\n\n\n"
            "def test_even_length():\n    assert median([1, 2, 3, 4]) == 2.5\n```\n\n"
            "`test_even_length` fails today: `median` returns the upper middle value."
        )

    def _after_tool(self, request: ModelRequest) -> Reply:
        result = request.tool_results[-1].strip()
        called = request.last_tool_calls[-1] if request.last_tool_calls else ""
        if called == "ask_user":
            answer = re.sub(r"^User (selected|responded):\s*", "", result)
            return Reply(f"Thanks: you chose **{answer[:200]}**.")
        if NOT_APPROVED.search(result) and len(result) < 500:  # a refusal, not a file's text
            return Reply("Understood: that was not approved, so I did not do it.")
        if called == "notebook_read":
            if RUN_ASKED.search(request.prompt):
                return self._run_cell(result)
            return self._insert_cell(request, result)
        if called == "notebook_run_cells":
            return Reply(
                "It ran in the notebook's kernel, and everyone in the notebook saw the output "
                f"appear. What I was told:\n\n```\n{result[:1500]}\n```"
            )
        if called == "task":
            return Reply(f"The custom agent reported:\n\n{result[:3000]}")
        if called == "view":
            return Reply(self._review(result))
        if called == "notebook_insert_cell":
            return self._next_cell(request)
        if called == "edit":
            return Reply("Done: the file is edited as the diff on the card showed.")
        return Reply(
            f"Here is what it printed:\n\n```\n{result[:1500]}\n```\n\n"
            "That was a real command, run by the Copilot runtime after the room approved it."
        )

    def _insert_cell(self, request: ModelRequest, result: str) -> Reply:
        try:
            read = json.loads(result)
            path, index = read["path"], len(read["cells"])
        except (ValueError, KeyError, TypeError):
            return Reply(f"I could not read that notebook: {result[:300]}")
        return Reply(
            "I'll add two cells at the end: the median of an even number of values, then a note "
            "above it. Each edit waits for approval, with its diff.",
            tool_calls=(_insert(path, index, 0),),
        )

    def _run_cell(self, result: str) -> Reply:
        try:
            read = json.loads(result)
            path = read["path"]
            code = [c["id"] for c in read["cells"] if c["cell_type"] == "code"]
        except (ValueError, KeyError, TypeError):
            return Reply(f"I could not read that notebook: {result[:300]}")
        if not code:
            return Reply(f"`{path}` has no code cell to run.")
        return Reply(
            f"I'll run the first code cell of `{path}` in its kernel. Running code always waits "
            "for approval; the card shows the code.",
            tool_calls=(ToolCall("notebook_run_cells", {"path": path, "cell_ids": code[:1]}),),
        )

    def _next_cell(self, request: ModelRequest) -> Reply:
        """After the code cell, the note above it; after that, done."""
        last = _last_arguments(request)
        step = next((n for n, (_, source) in enumerate(DEMO_CELLS) if source == last["source"]))
        if step + 1 < len(DEMO_CELLS):
            return Reply(tool_calls=(_insert(last["path"], last["index"], step + 1),))
        return Reply(
            "Done: the new cells are at the end of the notebook. Each carries a **Copilot** "
            "badge naming who asked; click it to find this prompt in the room."
        )

    def _review(self, content: str) -> str:
        functions = re.findall(r"def (\w+)\(", content)
        found = ", ".join(f"`{f}`" for f in functions) or "no functions"
        bug = (
            "\n\n**Bug:** `median` returns `ordered[middle]`, the upper middle value, for an even "
            "number of values: `median([1, 2, 3, 4])` is 3, not 2.5. Fix: average the two middle "
            "values.\n\n**Missing tests:** none cover `median`; an even-length case would have "
            "caught this."
            if MEDIAN_BUG.search(content) and MEDIAN_FIXED not in content
            else "\n\nNo bug left in `median`: it averages the two middle values of an even "
            "number of them."
            if MEDIAN_FIXED in content
            else "\n\nThe demo model only knows the example's planted bug; Copilot itself reviews "
            "for real."
        )
        return f"Review of the file ({found}), as the skill asks: bugs first.{bug}"

    # -- helpers ---------------------------------------------------------------------------------

    def _named(self, asked: str, suffix: str) -> str | None:
        """A file inside the repository that the prompt names (ending in `suffix`), if any."""
        root = self.repository.resolve()
        for word in re.findall(r"[\w./-]+", asked):
            word = word.removeprefix("./").rstrip(".")
            path = (root / word).resolve()
            if word.endswith(suffix) and path.is_relative_to(root) and path.is_file():
                return path.relative_to(root).as_posix()
        return None

    def _first_notebook(self) -> str | None:
        """The repository's first notebook, at its top or one folder down (never a hidden one:
        pathlib's `*` matches a leading dot, and Jupyter's atomic save writes `.~name.ipynb`
        beside the notebook for a moment, which the demo once took for it)."""
        for pattern in ("[!.]*.ipynb", "[!.]*/[!.]*.ipynb"):
            if found := sorted(self.repository.glob(pattern)):
                return found[0].relative_to(self.repository).as_posix()
        return None


def _insert(path: str, index: int, step: int) -> ToolCall:
    cell_type, source = DEMO_CELLS[step]
    return ToolCall(
        "notebook_insert_cell",
        {"path": path, "index": index, "cell_type": cell_type, "source": source},
    )


def _last_arguments(request: ModelRequest) -> dict:
    """The arguments of the model's latest tool call."""
    for message in reversed(request.messages):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            return json.loads(message["tool_calls"][-1]["function"]["arguments"])
    return {}


def steering(request: ModelRequest) -> tuple[str, str] | None:
    """The last steering message (`[login] (steering): text`) since the model last said
    something (a bare tool call says nothing: the runtime adds some of its own)."""
    found = None
    for message in reversed(request.messages):
        if message.get("role") == "assistant" and text_of(message).strip():
            break
        if message.get("role") == "user" and (match := STEERING.search(text_of(message))):
            found = found or (match.group(1), match.group(2).strip())
    return found


def _own_words(asked: str) -> tuple[str, str]:
    """The person's own words, and what `%%copilot --with` attached after them ('' for none)."""
    parts = ATTACHED.split(asked, maxsplit=1)
    return parts[0].strip(), (parts[1] if len(parts) > 1 else "")


def _about_attached(asked: str, attached: str) -> str:
    """An answer about the variables a notebook attached: their summaries are all it has."""
    names = ATTACHED_NAME.findall(attached) or ["the variable"]
    named = ", ".join(f"`{name}`" for name in names)
    said = f"You attached {named} from your notebook: its summary, not the data."
    if "median" in asked.lower():
        return (
            f"{said} The median in it comes from `median` in `stats.py`, which returns the upper "
            "of the two middle values when there is an even number of them: for 1, 2, 3, 4 it "
            "says 3, not 2.5. That is the bug. Ask me to **fix the bug in stats.py** and I will "
            "propose the edit, with its diff."
        )
    summary = attached.strip()[:1200]
    return f"{said} Here is what I was given about it:\n\n{summary}"
