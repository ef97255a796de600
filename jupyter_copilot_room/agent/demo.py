"""What the demo model says: a room that works out of the box, with no Copilot login.

Demo mode runs the REAL Copilot runtime against the scripted model server on 127.0.0.1 with this
script, so a fresh `jupyter lab` shows everything the room does: a streamed answer, a shell
command that waits for approval, and a question. It is labelled "demo model" everywhere.
"""

from __future__ import annotations

import re

from .scripted_model import ModelRequest, Reply, ToolCall

DEMO_MODEL = "demo-model"
DEMO_LABEL = "demo model"
DEMO_NOTE = (
    "Demo mode: no Copilot login or provider is configured on this server, so a scripted demo "
    "model answers, through the real Copilot runtime."
)

INTRO = """\
**Demo mode.** No Copilot login was found on this server, so a small scripted *demo model* is
answering, through the real Copilot runtime. Everything else is real: the shared queue, the
approvals, the transcript.

Try:
- **run a command**: I will ask to list the repository's files; the person who asked (or a
  host) approves or rejects it in the room.
- **ask me a question**: I will ask *you* something, with choices.

To use Copilot itself, start the server with `COPILOT_GITHUB_TOKEN` set (or log in with the
Copilot CLI), or configure your own model with `c.CopilotRoom.provider`."""


def demo_script(request: ModelRequest) -> Reply:
    if request.tool_results:
        return _after_tool(request)
    text = re.sub(r"^\[[^\]]+\]:\s*", "", request.prompt).lower()
    if re.search(r"\b(run|command|shell|list|ls)\b", text):
        return Reply(
            "I'll list the files in the repository. That needs approval in the room.",
            tool_calls=(
                ToolCall(
                    "bash", {"command": "ls -la", "description": "List the repository's files"}
                ),
            ),
        )
    if re.search(r"\b(ask|question|choose)\b", text):
        return Reply(
            tool_calls=(
                ToolCall(
                    "ask_user",
                    {
                        "question": "Which part of the room should we try next?",
                        "choices": ["Run a command", "Nothing, thanks"],
                        "allow_freeform": True,
                    },
                ),
            )
        )
    return Reply(INTRO)


def _after_tool(request: ModelRequest) -> Reply:
    result = request.tool_results[-1]
    if "ask_user" in request.last_tool_calls:
        return Reply(f"Thanks: you answered **{result.strip()[:200]}**.")
    if re.search(r"reject|denied|not approved|nobody answered", result, re.IGNORECASE):
        return Reply("Understood: the command was not approved, so I did not run it.")
    return Reply(
        f"Here is what it printed:\n\n```\n{result.strip()[:1500]}\n```\n\n"
        "That was a real command, run by the Copilot runtime after the room approved it."
    )
