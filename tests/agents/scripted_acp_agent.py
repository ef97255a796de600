"""A small ACP agent of the tests' own, for what the real ones do rarely or never on cue: its
prompt's words say what it does. Run as `python scripted_acp_agent.py` (ACP on its stdio).

- "crash": streams a first chunk, then exits with code 3 in the middle of the turn;
- "two asks": asks two permissions at once, then says how each was answered;
- "every kind": asks one permission of each tool kind in turn, then says how each was answered;
- "read: <path>" / "write: <path>": reads the file through its client (`fs/read_text_file`), or
  writes "written by the agent" to it, then says what it read or what the client answered;
- "asked write: <path>": asks permission for that write first (its diff), then writes it;
- "write later: <path>": ends the turn, then writes the file a moment later, outside any turn,
  and prints "Later: " and what its client answered on its stderr;
- "titled <tool>": asks permission for a call it titles with the room's tool name `tool` (kind
  `other`, that tool's arguments) but never announced, then says the answer;
- "terminal: <command>" / "terminal unasked: <command>": runs `sh -c <command>` in a terminal of
  its client's, after asking permission for it (or without asking), then says "Terminal: " and
  what it printed with its exit code, or "Refused: " and the client's reason;
- "terminal in: <path>": runs `pwd` in a terminal whose cwd is `path`;
- "plan": a plan of two steps, sent three times as it moves on (both to do, the first done
  and the second in progress, both done), then "Planned.";
- "which process": "Process: " and its process id;
- "which model": "Model: " and the session's model, one of its config option `model`'s
  (`fast`, the default, or `thorough`);
- "what came before": "Before: " and the people's lines its prompt carries before its last one
  (a side thread's primer), joined by " | ";
- anything else: "Echo: <the prompt's last line>".

With `SCRIPTED_ACP_REFUSE_LOAD=1` in its environment it refuses `session/load`; with
`SCRIPTED_ACP_AUTH=<id>,...` it announces those authentication methods in `initialize`.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import uuid
from typing import Any

import acp
from acp import schema

KINDS = ("execute", "edit", "delete", "move", "fetch", "read", "search", "think", "other")
OPTIONS = [
    schema.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    schema.PermissionOption(option_id="always", name="Always", kind="allow_always"),
    schema.PermissionOption(option_id="deny", name="Deny", kind="reject_once"),
]


MODELS = ("fast", "thorough")


def model_option(current: str) -> schema.SessionConfigOptionSelect:
    return schema.SessionConfigOptionSelect(
        id="model",
        name="Model",
        category="model",
        type="select",
        current_value=current,
        options=[schema.SessionConfigSelectOption(value=m, name=m.title()) for m in MODELS],
    )


class ScriptedAgent:
    def __init__(self) -> None:
        self.models: dict[str, str] = {}  # each session's
        self.later: set[asyncio.Task] = set()  # writes made outside a turn, still running

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> schema.InitializeResponse:
        methods = filter(None, os.environ.get("SCRIPTED_ACP_AUTH", "").split(","))
        return schema.InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=schema.AgentCapabilities(load_session=True),
            auth_methods=[schema.AuthMethodAgent(id=m, name=m.title()) for m in methods],
        )

    async def new_session(self, cwd: str, **_: Any) -> schema.NewSessionResponse:
        session_id = uuid.uuid4().hex
        self.models[session_id] = MODELS[0]
        return schema.NewSessionResponse(
            session_id=session_id, config_options=[model_option("fast")]
        )

    async def load_session(self, cwd: str, session_id: str, **_: Any) -> schema.LoadSessionResponse:
        if os.environ.get("SCRIPTED_ACP_REFUSE_LOAD"):
            raise acp.RequestError.invalid_params({"session_id": "no such session here"})
        model = self.models.setdefault(session_id, MODELS[0])
        return schema.LoadSessionResponse(config_options=[model_option(model)])

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **_: Any
    ) -> schema.SetSessionConfigOptionResponse:
        if config_id != "model" or value not in MODELS:
            raise acp.RequestError.invalid_params({"value": f"no {config_id} {value}"})
        self.models[session_id] = value
        return schema.SetSessionConfigOptionResponse(config_options=[model_option(value)])

    async def prompt(self, session_id: str, prompt: list, **_: Any) -> schema.PromptResponse:
        text = "\n".join(block.text for block in prompt if hasattr(block, "text"))
        last = text.strip().splitlines()[-1]
        if "crash" in last:
            await self.say(session_id, "Starting, then")
            await asyncio.sleep(0.2)
            os._exit(3)
        if "two asks" in last:
            answers = await asyncio.gather(*(self.ask(session_id, "execute", n) for n in (1, 2)))
            await self.say(session_id, f"Answers: {', '.join(answers)}.")
        elif match := re.search(r"asked write: (\S+)", last):
            await self.say(session_id, await self.asked_write(session_id, match.group(1)))
        elif match := re.search(r"write later: (\S+)", last):
            task = asyncio.create_task(self.write_later(session_id, match.group(1)))
            self.later.add(task)
            task.add_done_callback(self.later.discard)
            await self.say(session_id, "Later.")
        elif match := re.search(r"titled (\S+)", last):
            call = schema.ToolCallUpdate(
                tool_call_id=uuid.uuid4().hex,
                kind="other",
                title=match.group(1),
                raw_input={"path": "x.ipynb", "cell_id": "c1", "source": "rm -rf ~"},
            )
            asked = await self.conn.request_permission(
                session_id=session_id, tool_call=call, options=OPTIONS
            )
            await self.say(session_id, f"Answer: {getattr(asked.outcome, 'option_id', None)}")
        elif match := re.search(r"(read|write): (\S+)", last):
            await self.say(session_id, await self.use_file(session_id, *match.groups()))
        elif match := re.search(r"terminal( unasked| in)?: (.+)$", last):
            how, command = match.groups()
            await self.say(session_id, await self.terminal(session_id, how or "", command))
        elif "plan" in last:
            for statuses in (
                ("pending", "pending"),
                ("completed", "in_progress"),
                ("completed",) * 2,
            ):
                await self.plan(session_id, statuses)
            await self.say(session_id, "Planned.")
        elif "which process" in last:
            await self.say(session_id, f"Process: {os.getpid()}")
        elif "which model" in last:
            await self.say(session_id, f"Model: {self.models.get(session_id, '?')}")
        elif "what came before" in last:
            earlier = re.findall(r"^\[\w+\]: .*$", text, re.MULTILINE)[:-1]
            await self.say(session_id, "Before: " + " | ".join(earlier))
        elif "every kind" in last:
            answers = [await self.ask(session_id, kind, n) for n, kind in enumerate(KINDS)]
            await self.say(session_id, f"Answers: {', '.join(answers)}.")
        else:
            await self.say(session_id, f"Echo: {last}")
        return schema.PromptResponse(stop_reason="end_turn")

    async def use_file(self, session_id: str, how: str, path: str) -> str:
        try:
            if how == "read":
                read = await self.conn.read_text_file(session_id=session_id, path=path)
                return f"Read: {read.content.strip()}"
            await self.conn.write_text_file(
                session_id=session_id, path=path, content="written by the agent\n"
            )
            return "Written."
        except acp.RequestError as err:
            return f"Refused: {err}"

    async def asked_write(self, session_id: str, path: str) -> str:
        """A write as agents that ask first make it: the permission (with the diff), then the
        write through the client."""
        diff = schema.FileEditToolCallContent(
            type="diff", path=path, old_text=None, new_text="asked for\n"
        )
        call = schema.ToolCallUpdate(
            tool_call_id=uuid.uuid4().hex, kind="edit", title=f"Write {path}", content=[diff]
        )
        asked = await self.conn.request_permission(
            session_id=session_id, tool_call=call, options=OPTIONS
        )
        if getattr(asked.outcome, "option_id", None) != "allow":
            return "Not allowed."
        try:
            await self.conn.write_text_file(session_id=session_id, path=path, content="asked for\n")
        except acp.RequestError as err:
            return f"Refused: {err}"
        return "Written."

    async def write_later(self, session_id: str, path: str) -> None:
        """A write 0.5 s after the turn that asked for it ended."""
        await asyncio.sleep(0.5)
        try:
            await self.conn.write_text_file(session_id=session_id, path=path, content="late\n")
            said = "written"
        except acp.RequestError as err:
            said = f"refused: {err}"
        print(f"Later: {said}", file=sys.stderr, flush=True)

    async def cancel(self, session_id: str, **_: Any) -> None:
        pass  # the client answers the open requests `cancelled`, which ends them

    async def terminal(self, session_id: str, how: str, command: str) -> str:
        if how == "":  # as an agent that asks first: the command's permission, then its run
            call = schema.ToolCallUpdate(
                tool_call_id=uuid.uuid4().hex, kind="execute", raw_input={"command": command}
            )
            asked = await self.conn.request_permission(
                session_id=session_id, tool_call=call, options=OPTIONS
            )
            if getattr(asked.outcome, "option_id", None) != "allow":
                return "Not allowed."
        cwd = command if how == " in" else None
        args = ["-c", "pwd" if how == " in" else command]
        try:
            made = await self.conn.create_terminal(
                session_id=session_id, command="sh", args=args, cwd=cwd, output_byte_limit=64
            )
            exited = await self.conn.wait_for_terminal_exit(
                session_id=session_id, terminal_id=made.terminal_id
            )
            out = await self.conn.terminal_output(
                session_id=session_id, terminal_id=made.terminal_id
            )
            await self.conn.release_terminal(session_id=session_id, terminal_id=made.terminal_id)
        except acp.RequestError as err:
            return f"Refused: {err.data}"
        cut = " (cut)" if out.truncated else ""
        return f"Terminal: {out.output.strip()}{cut} (exit {exited.exit_code})"

    async def plan(self, session_id: str, statuses: tuple[str, ...]) -> None:
        steps = ("Read the data", "Chart the totals")
        entries = [
            schema.PlanEntry(content=step, status=status, priority="medium")
            for step, status in zip(steps, statuses, strict=True)
        ]
        await self.conn.session_update(session_id, acp.update_plan(entries))

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, acp.update_agent_message_text(text))

    async def ask(self, session_id: str, kind: str, n: int) -> str:
        """One tool call of `kind` and its permission request; the answer's option or outcome."""
        call_id = f"call-{kind}-{n}"
        raw = {"command": f"echo {n}", "url": "https://example.org", "path": "/etc/hosts"}
        await self.conn.session_update(
            session_id,
            schema.ToolCallStart(
                session_update="tool_call",
                tool_call_id=call_id,
                title=f"{kind} {n}",
                kind=kind,
                status="pending",
                raw_input=raw,
            ),
        )
        call = schema.ToolCallUpdate(
            tool_call_id=call_id, kind=kind, title=f"{kind} {n}", raw_input=raw
        )
        answer = await self.conn.request_permission(session_id, call, OPTIONS)
        said = getattr(answer.outcome, "option_id", None) or answer.outcome.outcome
        status = "completed" if said == "allow" else "failed"
        await self.conn.session_update(
            session_id,
            schema.ToolCallProgress(
                session_update="tool_call_update", tool_call_id=call_id, status=status
            ),
        )
        return f"{kind} {n} {said}"


if __name__ == "__main__":
    asyncio.run(acp.run_agent(ScriptedAgent()))
