"""`CopilotAgent`: the room's agent seam on one Copilot runtime and its one session. It owns the
session's life (started, resumed, reconnected when the custom agents change, restarted when the
room asks), the choice of model access and its changes (a host's model, a sign-in or sign-out),
and the room's turns as `session.send` calls. What the runtime asks of the room goes through
`runtime_callbacks.py`, the hangs it does not report through `health.py`, its events through
`translate.py`; the room hears only the events of `events`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from copilot.session import Attachment, BlobAttachment, FileAttachment

from ...events import AgentError, AgentStatus
from ...notebooks.outputs import OutputImage
from ..attribution import SYSTEM_NOTE, attributed
from ..runtime import RuntimeLocation, RuntimeMissing, find_runtime
from ..seam import Agent, AgentHost, AgentSettings, AgentTurn, SeatQuota
from . import account, credit_limit
from .connection import Connection
from .forks import TurnMessages, fork_into
from .health import Watchdog
from .login_flow import CopilotLoginFlow
from .model_access import ModelAccess, choose_model_access, login_token
from .runtime_callbacks import RuntimeCallbacks
from .sdk_log import hear_sdk_in
from .translate import EventTranslator, event_name, model_silent

#: What the agent's ready line says when the room's session could not be resumed: in general,
#: and after a sign-in or sign-out (the session belonged to the other model access).
SESSION_LOST = (
    "The previous Copilot session could not be resumed, so the agent starts without its earlier "
    "context."
)
SIGNED_IN_SESSION = (
    "A new Copilot session for the signed-in account: the conversation so far stays in the "
    "room's transcript, and the agent starts afresh, without it as context."
)
SIGNED_OUT_SESSION = (
    "A new session for the demo model: the conversation so far stays in the room's transcript, "
    "and the agent starts afresh, without it as context."
)


class CopilotAgent(Agent):
    def __init__(self, settings: AgentSettings):
        super().__init__(settings)
        self.log = settings.log
        hear_sdk_in(self.log)
        self.translator = EventTranslator()
        self.connection: Connection | None = None
        self._host: AgentHost | None = None
        self._location: RuntimeLocation | None = None
        self._access: ModelAccess | None = None
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self._tasks: list[asyncio.Task] = []
        self._lock = asyncio.Lock()  # held while the runtime (re)connects
        self._agents: list[dict] = []  # the custom agents the session was opened with
        self.callbacks = RuntimeCallbacks(settings, lambda: self.host, self._show_images)
        self.turn_messages = TurnMessages(settings.state_dir)
        self._model = ""  # the model a host chose for the next turns ("": the configured one)
        self._session_model = ""  # the model the session asks now
        self._ready_detail = ""  # what the last ready status said
        self._new_access = ""  # why a session left unresumed after a sign-in or -out is new
        self._logins = 0  # the shared runtime's sign-ins and -outs when access was chosen
        self.watchdog = Watchdog(
            settings.model_timeout,
            self.translator,
            connection=lambda: None if self._lock.locked() else self.connection,
            lost=self._runtime_lost,
            silent=self._model_went_silent,
        )

    @property
    def host(self) -> AgentHost:
        assert self._host is not None, "start() the agent first"
        return self._host

    @property
    def label(self) -> str:
        if self._access is None:
            return "Copilot"
        if self._model:  # a host's choice
            return f"{self._model} via {self._access.via}" if self._access.via else self._model
        return self._access.label

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self, host: AgentHost) -> None:
        self._host = host
        self._tasks.append(asyncio.create_task(self._pump()))
        self._tasks.append(asyncio.create_task(self.watchdog.probe()))
        await self._bring_up("Starting the Copilot runtime…")

    async def restart(self) -> None:
        """Start afresh: after a hang or a lost runtime, and when a host retries an agent that
        could not start (the runtime is looked for again, so a newly installed one is found)."""
        await self._bring_up("Restarting the runtime…")

    async def _bring_up(self, detail: str) -> None:
        async with self._lock:
            await self._status("starting", detail)
            await self._disconnect(reconnecting=True)
            try:
                self._location = find_runtime(self.settings.cli_path)
                await self._connect()
            except Exception as err:
                await self._disconnect()
                await self._unavailable(err)

    async def _status(self, state: str, detail: str = "", error: str = "") -> None:
        access = self._access
        model = self._model or (access.session.get("model", "") if access else "")
        await self.host.publish(
            AgentStatus(
                state=state,  # type: ignore[arg-type]
                label=self.label,
                detail=detail,
                error=error,
                model=model,
                ai_credits=access.ai_credits if access else None,
                source=access.source if access else "",
            )
        )

    async def _unavailable(self, err: Exception) -> None:
        """One line in the log and a short paragraph for people; the details apart."""
        if isinstance(err, RuntimeMissing):
            advice, details = err.advice, err.details
            advice_for_log = advice
        else:
            advice = (
                "The Copilot runtime could not be started. A host can press Try again; if it "
                "fails again, the details say why (and the server log, at debug level)."
            )
            details = error_chain(err)
            advice_for_log = f"{advice} Cause: {details.splitlines()[0]}"
        self.log.error("Copilot room: the agent is unavailable. %s", advice_for_log)
        self.log.debug("Why the agent is unavailable: %s", details, exc_info=err)
        await self._status("unavailable", advice, details)

    async def _connect(self) -> None:
        """Start the runtime, work out model access, then resume or open the session."""
        assert self._location is not None
        token = login_token()
        self.connection = Connection(
            self.settings, self._location.path, token, busy=lambda: self.translator.busy
        )
        await self.connection.start()
        if self._access is not None and self._logins != self.connection.runtime.logins:
            await self._access.close()  # chosen before a sign-in or sign-out elsewhere
            self._access = None
        if self._access is None:
            self._logins = self.connection.runtime.logins
            self._access = await choose_model_access(
                self.settings, self.connection.client, token, self.log
            )
        if self.settings.catalog is not None:
            self.settings.catalog.refresh()
        lost = await self.connection.open_session(
            self._session_config(), self._events.put_nowait, self.log
        )
        note = (self._new_access or SESSION_LOST) if lost else ""
        self._new_access = ""
        self._ready_detail = " ".join([*self._access.notes, note]).strip()
        await self._status("ready", self._ready_detail)

    def _session_config(self) -> dict[str, Any]:
        assert self._access is not None
        config: dict[str, Any] = {
            **self._access.session,
            "streaming": True,
            "working_directory": str(self.settings.repository),
            "on_permission_request": self.callbacks.on_permission,
            "on_user_input_request": self.callbacks.on_user_input,
            "system_message": {"mode": "append", "content": SYSTEM_NOTE},
        }
        if (catalog := self.settings.catalog) is not None:
            config["skill_directories"] = [str(d) for d in catalog.skill_directories()]
            config["custom_agents"] = self._agents = catalog.agent_configs()
        if self._model:
            config["model"] = self._model
        self._session_model = config.get("model", "")
        if self.settings.notebooks is not None:
            config["tools"] = self.callbacks.tools()
        if (limits := credit_limit.opening_limits(self.host.credits_left())) is not None:
            config["session_limits"] = limits
        return config

    async def _disconnect(self, *, reconnecting: bool = False) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close(reconnecting=reconnecting)

    def login_flow(self) -> CopilotLoginFlow | None:
        demo = self._access is not None and self._access.demo is not None
        if not demo or self.connection is None or self.connection.session is None:
            return None
        return CopilotLoginFlow(self.connection.session, self.settings.github_host)

    async def use_login(self) -> None:
        await self._choose_access_again("Starting with the Copilot login…", SIGNED_IN_SESSION)

    async def sign_out(self) -> bool:
        """A login kept in plain text (no keychain) is removed from the runtime's file while the
        runtime is stopped; a keychain's is the runtime's own to remove."""
        if self.connection is None or login_token() is not None:
            return False  # a token from the environment is not the runtime's to forget
        status = await self.connection.client.get_auth_status()
        if not status.isAuthenticated:
            return False
        forget = await account.log_out(self.connection, status.host or "", status.login or "")
        await self._choose_access_again(
            "Signed out of Copilot; starting the demo model…", SIGNED_OUT_SESSION, forget
        )
        return True

    async def seat_quota(self) -> SeatQuota | None:
        access, connection = self._access, self.connection
        if access is None or access.demo is not None or "provider" in access.session:
            return None  # no Copilot seat answers: the demo, or the host's own endpoint
        if connection is None:
            return None
        return await account.seat_quota(connection, self.log)

    async def _choose_access_again(
        self, detail: str, new_session: str, forget: Callable[[], None] | None = None
    ) -> None:
        """Model access is chosen once per start; a sign-in or sign-out chooses it again. The
        room's session was opened for the other access: if the runtime cannot resume it under
        this one, `new_session` says what that means. `forget` runs with the runtime stopped,
        which every room shares: the other rooms reconnect and choose their access again."""
        async with self._lock:
            if self.connection is not None:
                runtime = self.connection.runtime
                if forget is not None:
                    await runtime.stopped_for(self.connection, forget)  # or 409: a turn runs
                else:
                    runtime.logins += 1  # the other rooms choose again at their next start
            if self._access is not None:
                await self._access.close()
                self._access = None
            self._new_access = new_session
        await self._bring_up(detail)

    async def stop(self) -> None:
        if self.translator.ignored:
            self.log.info(
                "Copilot runtime events the room ignored: %s", dict(self.translator.ignored)
            )
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
        self.watchdog.cancel()
        await self._disconnect()
        if self._access is not None:
            await self._access.close()
            self._access = None  # a later start (the room woke it) chooses it afresh

    # -- turns -----------------------------------------------------------------------------------

    async def send(self, turn: AgentTurn) -> None:
        if self.connection is None or self.connection.session is None:
            raise RuntimeError("the Copilot session is not connected")
        catalog = self.settings.catalog
        if catalog is not None and catalog.agent_configs() != self._agents:
            # Custom agents are fixed when a session is opened: reconnect to pass the new set.
            async with self._lock:
                await self._disconnect(reconnecting=True)
                await self._connect()
        assert self.connection is not None
        if self._model and self._model != self._session_model:
            # The runtime switches a live session's model for its next message, history kept.
            await self.connection.session.set_model(self._model)
            self._session_model = self._model
        self.translator.begin_turn()
        self.watchdog.begin_turn()
        self.callbacks.begin_turn(turn)
        # An image goes as a blob attachment: the runtime hands it to the model as an image part.
        attachments: list[Attachment] = [
            BlobAttachment(type="blob", data=i.data, mimeType=i.mime, displayName=i.name)
            for i in turn.images
        ]
        # A repository file goes by its path: the runtime tags it for the model, which reads it.
        attachments += [
            FileAttachment(type="file", path=f.path, displayName=f.name) for f in turn.files
        ]
        message_id = await self.connection.session.send(
            attributed(turn.author, turn.text), attachments=attachments or None
        )
        await self.turn_messages.remember(turn.prompt_id, message_id)  # where a fork may cut
        await self.connection.prompted()

    async def fork(self, later: Sequence[str], into: Path, name: str) -> None:
        connection = self.connection
        if connection is None or connection.session is None:
            raise RuntimeError("the Copilot session is not connected")
        sent = (self.turn_messages.message_of(prompt_id) for prompt_id in later)
        boundary = next((message for message in sent if message is not None), None)
        await fork_into(connection.client, connection.session, boundary, into, name)

    async def steer(self, author: str, text: str) -> None:
        if self.connection is None or self.connection.session is None:
            raise RuntimeError("the Copilot session is not connected")
        if not self.translator.busy:  # sent now, it would start a turn the room never started
            raise RuntimeError("the turn has just ended")
        # "immediate": into the running turn, read at the model's next step (not queued after).
        await self.connection.session.send(
            attributed(author, text, note=" (steering)"), mode="immediate"
        )

    async def _show_images(self, images: list[OutputImage]) -> None:
        """A tool's image results do not reach a provider's model (the runtime keeps them for its
        own timeline), so a run's images go as a message into the running turn (immediate
        mode), which the model reads right after the tool's result."""
        assert self.connection is not None and self.connection.session is not None
        names = ", ".join(i.description for i in images)
        await self.connection.session.send(
            f"(The images output by the cells notebook_run_cells just ran, in order: {names}.)",
            mode="immediate",
            attachments=[
                BlobAttachment(
                    type="blob", data=i.data, mimeType=i.mime_type, displayName=i.description
                )
                for i in images
            ],
        )

    async def models(self) -> list[str]:
        return list(self._access.models) if self._access is not None else []

    async def use_model(self, model: str) -> None:
        self._model = model
        if self.connection is not None and not self._lock.locked():
            await self._status("ready", self._ready_detail)  # the label names the new model

    async def abort(self) -> None:
        if self.settings.notebooks is not None:
            self.settings.notebooks.interrupt()  # cells running for the turn stop with it
        if self.connection is not None and self.connection.session is not None:
            await self.connection.session.abort()

    # -- health ----------------------------------------------------------------------------------

    async def _runtime_lost(self) -> None:
        """The probe found the runtime gone: tell the room (which restarts it)."""
        self.log.warning("The Copilot runtime stopped answering")
        self.translator.busy = False
        await self._status("lost", "The Copilot runtime stopped answering; restarting it…")

    async def _model_went_silent(self) -> None:
        """The model endpoint sent nothing for `model_timeout` s: fail the turn with that reason
        (the runtime then ends it as aborted) rather than wait for the turn's deadline."""
        message = model_silent(self.settings.model_timeout)
        self.log.warning("Copilot room: %s", message)
        self.translator.fail(message)
        await self.host.publish(AgentError(message=message))
        await self.abort()

    # -- events ----------------------------------------------------------------------------------

    async def _pump(self) -> None:
        """Hand runtime events to the room one at a time, in the order they came."""
        while True:
            event = await self._events.get()
            self.watchdog.saw(event_name(event))
            try:
                if event_name(event) == "session_limits_exhausted.requested":
                    await self._credit_limit_reached(event.data)
                for mapped in self.translator.translate(event):
                    await self.host.publish(mapped)
            except Exception:
                self.log.exception("Could not handle runtime event %s", event_name(event))

    async def _credit_limit_reached(self, data: Any) -> None:
        """The session spent its AI Credits limit: raise it to what the author may still spend
        today, or (nothing left) cancel the blocked call and fail the turn saying why."""
        left = self.host.credits_left()
        if left is not None:
            left -= self.translator.turn_credits
        reply = credit_limit.answer(data.request_id, data.used_ai_credits, left)
        if left is not None and left <= 0:
            self.translator.fail(credit_limit.CAP_SPENT)
        if self.connection is not None and self.connection.session is not None:
            await self.connection.session.rpc.ui.handle_pending_session_limits_exhausted(reply)


def error_chain(err: BaseException) -> str:
    """An exception and its causes, one message a line (no traceback: that goes to debug)."""
    lines: list[str] = []
    seen: BaseException | None = err
    while seen is not None and len(lines) < 10:
        lines.append(f"{type(seen).__name__}: {seen}".strip())
        seen = seen.__cause__ or seen.__context__
    return "\n".join(lines)
