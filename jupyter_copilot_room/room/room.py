"""The room: the facade every command goes through.

Each command arrives with the caller's `Identity` (from `current_user`), is checked against the
role table by `People`, and is handed to the part that owns that state: `People` (who is here),
`Turns` (the queue and the running turn), `OpenRequests` (permission requests and questions).
Every fact is recorded in the transcript before the document shows it (`Recorder`). The agent
never sees this class: it is given a `RoomAgentHost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import unicodedata
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pycrdt import Doc
from pydantic import BaseModel

from .. import export
from ..access import rules
from ..access.admissions import AdmissionBook
from ..access.identity import HostClaim, Identity
from ..access.roles import ADMITTED, Action, Role, can
from ..agent.base import Agent
from ..attachments import AttachmentStore, Upload
from ..catalog import Catalog
from ..errors import (
    Conflict,
    InvalidRequest,
    NotAllowed,
    NotFound,
    RoomError,
    TooLarge,
    TooMany,
    Unavailable,
)
from ..events import (
    AdmissionChoice,
    BudgetLift,
    ChatMessage,
    ModelChanged,
    ParticipantRole,
    PromptRef,
    PromptSubmitted,
    Record,
    SettingsChanged,
    Steering,
    SystemNote,
    TurnReverted,
)
from ..notebooks import NotebookEditor, context
from ..request_bodies import ChatBody, ModelBody, PromptBody, SteerBody
from ..settings import SettingsStore
from . import budgets, snapshot
from .agent_host import RoomAgentHost
from .agent_slots import AgentSlots
from .budgets import Budgets
from .checkpoints import Author, Checkpoints
from .copilot_signin import SignIn
from .document import DEFAULT_WINDOW, RoomDocument
from .history import History
from .open_requests import OpenRequests
from .people import People
from .queue import PromptQueue, QueuedPrompt, TaskState, check_withdraw_prompt
from .recorder import Recorder
from .replay import Replayed, heap_frozen, replay, replay_prompt
from .snapshot import LiveRecords, Snapshot, Snapshots
from .storage import StorageWatch
from .streams import Streams
from .sync import CLIENT_BUFFER_BYTES, ClientChannel, RoomSync
from .transcript import Transcript, hash_prefix
from .turns import Turns

log = logging.getLogger(__name__)


def visible(text: str) -> bool:
    """Whether the text shows anything: not only spaces, control or zero-width characters."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


#: The room a 0.1 server had, for the server's root: its agent starts with the server.
MAIN = "main"

INTERRUPTED = (
    "The server restarted during this turn, so it was stopped; it was not re-run. "
    "Submit it again if it is still needed."
)


class Room:
    def __init__(
        self,
        *,
        state_dir: Path,
        book: AdmissionBook,
        repository: Path | None = None,
        settings: SettingsStore,
        agent: Agent | None = None,
        catalog: Catalog | None = None,
        notebooks: NotebookEditor | None = None,
        claim: HostClaim | None = None,
        clock: Callable[[], float] = time.time,
        client_buffer_bytes: int = CLIENT_BUFFER_BYTES,
        document_window: int = DEFAULT_WINDOW,
        budgets: Budgets | None = None,
        name: str = MAIN,
        slots: AgentSlots | None = None,
        idle_timeout: float = 0.0,
    ):
        self.name = name
        self.settings = settings
        self.budgets = budgets or Budgets()
        self.clock = clock
        self.agent = agent
        self.catalog = catalog
        self.claim = claim
        self.state_dir = state_dir
        self.transcript = Transcript(state_dir / "transcript.jsonl")
        self.history = History(state_dir / "history.jsonl")
        self.document = RoomDocument(
            document_window, on_evict=self.history.append, on_compacted=self._compacted
        )
        self.live = LiveRecords()
        self.snapshots = Snapshots(state_dir, self._capture, self.history.sync)
        self.sync = RoomSync(self.document.ydoc, client_buffer_bytes=client_buffer_bytes)
        self.storage = StorageWatch(state_dir)
        self.recorder = Recorder(self.transcript, self.document, clock, self.storage)
        self.people = People(
            book, state_dir / "admissions.json", self.document, self.recorder, self.sync.connected
        )
        self.queue = PromptQueue()
        self.attachments = AttachmentStore(state_dir / "attachments")
        self.checkpoints = Checkpoints(
            repository or Path.cwd(), state_dir, notebooks.live if notebooks else None
        )
        self.desk = OpenRequests(self.recorder, clock)
        self.streams = Streams(self.recorder, self.document)
        self.turns = Turns(
            queue=self.queue,
            recorder=self.recorder,
            document=self.document,
            desk=self.desk,
            streams=self.streams,
            settings=settings,
            agent=agent,
            catalog=catalog,
            notebooks=notebooks,
            attachments=self.attachments,
            checkpoints=self.checkpoints,
            name=name,
            slots=slots,
            idle_timeout=idle_timeout,
        )
        self.desk.on_waiting = self.turns.set_waiting
        self.storage.on_space(self.turns.space_returned)
        self.recorder.listen(lambda record: self.turns.show_state())
        self.recorder.listen(self._recorded)
        self.agent_host = RoomAgentHost(
            self.turns,
            self.desk,
            self.streams,
            self.recorder,
            self.document,
            settings,
            repository=repository or Path.cwd(),
            state_dir=state_dir,
            confined=name != MAIN,  # main's folder is the server's root, which holds the others
        )
        self.turns.host = self.agent_host
        self.turns.on_ready = self._read_seat_quota
        self.model: str | None = None  # the model a host chose (None: the agent's own)
        self.signin = SignIn(
            agent,
            lambda kind, actor, payload: self.recorder.commit(kind, actor, payload),
            lambda: self.queue.in_flight is None,
        )
        self._started = False
        self._stopping = False
        self._replayed: Replayed | None = None  # what the replay left, once it has run
        self._refused: Exception | None = None  # why every start is refused: see ensure_started
        self._start_lock = asyncio.Lock()
        self._on_started: list[Callable[[], None]] = []

    # -- lifecycle -------------------------------------------------------------------------------

    async def ensure_started(self) -> None:
        """Start the room, once: replay the transcript into the room's state, then settle what
        it left open and start serving.

        The replay rebuilds the state in place, so it runs at most once per Room: one that fails
        or is cancelled midway leaves the room half rebuilt, and every later start is refused
        with the same error until the server restarts. What follows the replay records (a full
        disk refuses that): a start that fails or is cancelled there is tried again by the next,
        without a second replay, each of its steps being safe to repeat."""
        if self._stopping:
            raise self._stopped()
        async with self._start_lock:
            if self._refused is not None:
                raise self._refused.with_traceback(None)
            if self._started:
                return
            if self._replayed is None:
                self._replayed = await self._replay_once()
            if not self._stopping:
                await self._start(self._replayed)
                self._started = True
            if self._stopping:  # the server stopped meanwhile: nothing of the room runs on
                await self.stop()
                raise self._stopped()
            started, self._on_started = self._on_started, []
            for callback in started:
                callback()

    @property
    def start_refused(self) -> bool:
        """Whether every start is refused until the server restarts (see `ensure_started`); a
        start refused otherwise (a full disk) is tried again by the next request."""
        return self._refused is not None

    def when_started(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the room has started: at once if it has, else when a start
        succeeds, also a request's after the server's start was refused (the host claim is
        printed then, not before)."""
        if self._started:
            callback()
        else:
            self._on_started.append(callback)

    async def _replay_once(self) -> Replayed:
        try:
            return await self._replay()
        except Exception as err:
            self._refused = err  # e.g. a record the chain refuses: `transcript_tampered`
            raise
        except BaseException:  # cancelled (the server stopping)
            self._refused = Unavailable(
                f"The room {self.name!r} was interrupted while it rebuilt itself from its "
                "transcript, so it is only half rebuilt: restart the server to start it.",
                code="start_interrupted",
            )
            raise

    async def _start(self, replayed: Replayed) -> None:
        """Settle the replayed room, then serve it. Until the services start, each step is safe
        to repeat (the caches and the meta are written again, a settled request is forgotten,
        an interrupted prompt finished leaves the queue); nothing after them can fail."""
        self.turns.last_ready = replayed.last_ready
        self.people.save_decisions()
        self.settings.save()
        self.people.apply_policies(self.settings.current)
        if self.people.book.claimed_hosts:
            self.claim = None  # the room has its host: no claim link
        self.document.set_meta(turn_owner=None, turn_prompt=None, kernel_state=None)
        if self.budgets.per_person or self.budgets.room:
            self.document.set_meta(budgets=self.budgets.model_dump())  # the caps, for the panel
        self.turns.settle_interrupted(replayed.open_requests, INTERRUPTED)
        self.model = replayed.model
        if self.agent is not None and self.model:
            await self.agent.use_model(self.model)  # the host's choice outlives the server
        await self.sync.start()
        self.snapshots.start()
        self.turns.start()
        # The runtime takes a second or two to start: the room serves meanwhile, and the
        # agent's status says when it can take the first turn.
        # main's panel shows a ready agent at once, as in 0.1; the others wake at their first prompt
        self.turns.bring_up(at_once=self.name == MAIN)

    def _stopped(self) -> Unavailable:
        return Unavailable(
            f"The server is stopping, so the room {self.name!r} does not start.",
            code="server_stopping",
        )

    async def stop(self) -> None:
        """Stop serving. A start under way (a request's, during a long replay) sees this when
        its replay ends and stops too, and every later start is refused: the server stops."""
        self._stopping = True
        if not self._started:
            await self.storage.stop()  # a start the full disk refused left it watching for space
            self.transcript.close()  # a refused start may have opened them
            self.history.close()
            return
        await self.turns.stop()
        if self.turns.notebooks is not None:
            await self.turns.notebooks.stop()
        await self.signin.stop()
        if self.agent is not None:
            await self.agent.stop()
        self.turns.leave_slots()
        await self.sync.stop()
        await self.storage.stop()
        await self.snapshots.stop()
        self.transcript.close()
        self.history.close()
        self._started = False

    # -- history: replay, snapshots, the window --------------------------------------------------

    async def _replay(self) -> Replayed:
        """Rebuild the room from the snapshot and the records after it if the snapshot matches,
        else from the whole transcript (rewriting the archive of evicted entries)."""
        run = partial(
            replay,
            queue=self.queue,
            people=self.people,
            streams=self.streams,
            settings=self.settings,
            live=self.live,
        )
        with heap_frozen():
            resumed = await self._resume_snapshot()
            if resumed is None:
                self.history.open(keep=0)
                replayed, chunks = Replayed(), self.transcript.load()
            else:
                snap, prefix = resumed
                replayed = await run(snap.live_records(), document=None)
                chunks = self.transcript.load(resume=snap.position, prefix=prefix)
            count = 0
            async with contextlib.aclosing(chunks):
                async for records in chunks:  # a chunk at a time, never the whole transcript
                    await run(records, document=self.document, replayed=replayed)
                    count += len(records)
        self.snapshots.changed = count
        return replayed

    async def _resume_snapshot(self) -> tuple[Snapshot, Any] | None:
        """The snapshot and the sha256 of the transcript prefix it covers, with the document
        and the archive loaded from it; None (after logging why) if there is none or it does
        not match."""
        problem: str | None
        try:
            found = await asyncio.to_thread(snapshot.read, self.state_dir)
        except (OSError, KeyError, TypeError, ValueError) as err:
            problem = f"it cannot be read ({err})"
        else:
            if found is None:
                return None
            snap, update = found
            problem, prefix = await self._check_snapshot(snap)
            if problem is None:
                try:
                    snap.live_records()
                    await self.document.load(update)
                except (ValueError, KeyError, TypeError) as err:
                    problem = f"it cannot be loaded ({err})"
                else:
                    self.sync.replace_document(self.document.ydoc)
                    self.history.open(keep=snap.archive_bytes)
                    return snap, prefix
        log.warning(
            "Discarding the room snapshot in %s: %s. Rebuilding the room from the whole "
            "transcript.",
            self.state_dir,
            problem,
        )
        await asyncio.to_thread(snapshot.discard, self.state_dir)
        return None

    async def _check_snapshot(self, snap: Snapshot) -> tuple[str | None, Any]:
        """Why the snapshot does not match the room (None if it does), and the prefix's hash."""
        if snap.window != self.document.window:
            return f"it keeps {snap.window} entries, the room {self.document.window}", None
        if self.history.existing_size() < snap.archive_bytes:
            return "history.jsonl is shorter than the snapshot says", None
        offset = snap.position.offset
        prefix = await asyncio.to_thread(hash_prefix, self.transcript.path, offset)
        if prefix is None:
            return "the transcript is shorter than the snapshot says", None
        if prefix.hexdigest() != snap.position.sha256:
            return f"the transcript's first {offset} bytes changed since it was written", None
        return None, prefix

    def _recorded(self, record: Record) -> None:
        self.live.add(record)
        self.snapshots.recorded()
        if record.kind == "prompt.finished":
            self._read_seat_quota()  # the turn may have used premium requests

    def _read_seat_quota(self) -> None:
        """Show what the Copilot seat has left (header), read after the agent got ready (a
        sign-in changes the seat) and after each turn; None where no seat answers."""
        agent = self.agent
        if agent is None:
            return

        async def read() -> None:
            quota = await agent.seat_quota()
            self.document.set_meta(copilot_quota=dataclasses.asdict(quota) if quota else None)

        self.turns.spawn(read())

    def _compacted(self, ydoc: Doc) -> None:
        """The document was rebuilt without its evicted entries: serve it, and snapshot it."""
        self.sync.replace_document(ydoc)
        self.snapshots.request()

    def _capture(self) -> tuple[Snapshot, bytes] | None:
        """The snapshot of the room now; None while a reply streams (its deltas are in the
        document but in no record) or after an archive write failed."""
        if self.streams.streaming or not self.history.intact:
            return None
        snap = Snapshot(
            window=self.document.window,
            position=self.transcript.position(),
            ydoc_sha256="",
            archive_bytes=self.history.size,
            live=[record.model_dump(mode="json") for record in self.live.records()],
        )
        return snap, self.document.ydoc.get_update()

    # -- people ----------------------------------------------------------------------------------

    def check_in(self, identity: Identity) -> Role:
        """Register the caller's visit and decide their role now."""
        return self.people.check_in(identity)

    def role_of(self, username: str) -> Role:
        return self.people.role_of(username)

    def terms(self) -> rules.Terms:
        """What of the room's settings and state the rules of `access/rules.py` depend on."""
        settings = self.settings.current
        return rules.Terms(
            viewers_can_chat=settings.viewers_can_chat,
            authors_can_revert=settings.authors_can_revert,
            claimable=self.claim is not None and self.claim.secret is not None,
        )

    def waiting_on(self, username: str, role: Role) -> int:
        """How many cards wait on `username` here: requests they may answer and have not
        approved, and people at the door if they admit people (each card's `answerers`)."""
        cards = [*(self.document.approvals.to_py() or {}).values(), *self.people.listing()]
        return rules.waiting_on(cards, username, role)

    def describe(self, identity: Identity) -> dict:
        """`GET room`: who I am and what I may do; the room's state only for those admitted."""
        role = self.people.check_in(identity)
        me = self.people.me(identity, role, self.terms())
        if role not in ADMITTED:
            return {"me": me}
        state = self.document.snapshot("meta", "queue", "approvals")
        return {
            "me": me,
            "agent": state["meta"],
            "queue": state["queue"],
            "approvals": state["approvals"],
            "participants": self.people.listing(),
            "settings": self.settings.current.model_dump(),
        }

    def list_people(self, identity: Identity) -> list[dict]:
        self.people.require(identity, Action.WATCH)
        return self.people.listing()

    async def connect(self, channel: ClientChannel, identity: Identity) -> None:
        """Serve the live document to an admitted person until they disconnect."""
        if not can(self.people.check_in(identity), Action.WATCH):
            channel.close(4403, "You are not admitted to this room.")  # lost since the upgrade
            return
        await self.sync.serve(channel, identity.username, self.people.presence_changed)

    def set_role(self, identity: Identity, username: str, role: ParticipantRole) -> Role:
        """Re-role someone; returns the role now in effect."""
        self.people.require(identity, Action.MANAGE_PEOPLE)
        return self._after_decision(
            identity, username, self.people.set_role(identity, username, role)
        )

    def remove(self, identity: Identity, username: str) -> None:
        self.people.require(identity, Action.MANAGE_PEOPLE)
        self._after_decision(identity, username, self.people.remove(identity, username))

    def admit(self, identity: Identity, username: str, decision: AdmissionChoice) -> Role:
        self.people.require(identity, Action.MANAGE_PEOPLE)
        return self._after_decision(
            identity, username, self.people.admit(identity, username, decision)
        )

    def _after_decision(self, host: Identity, username: str, role: Role) -> Role:
        """Someone no longer admitted loses their connections and their waiting prompts."""
        if role in ADMITTED:
            return role
        self.sync.disconnect(username, "You are no longer admitted to this room.")
        for prompt in list(self.queue.open()):
            if prompt.author == username and prompt.state is TaskState.SUBMITTED:
                record = self.recorder.commit(
                    "prompt.withdrawn", host.username, PromptRef(id=prompt.id)
                )
                self.queue.withdraw(prompt.id, host.username, may_withdraw_any=True, now=record.ts)
        return role

    def claim_host(self, identity: Identity, secret: str) -> None:
        self.people.claim_host(identity, self.claim, secret)

    # -- settings, catalog, transcript -----------------------------------------------------------

    def get_settings(self, identity: Identity) -> dict:
        self.people.require(identity, Action.WATCH)
        return self.settings.current.model_dump()

    def patch_settings(self, identity: Identity, patch: BaseModel) -> dict:
        self.people.require(identity, Action.EDIT_SETTINGS)
        if changes := self.settings.changes(patch):
            self.recorder.commit(
                "settings.changed", identity.username, SettingsChanged(changes=changes)
            )
            self.settings.apply(changes)
            self.people.apply_policies(self.settings.current)
        return self.settings.current.model_dump()

    def describe_catalog(self, identity: Identity) -> dict:
        """The repository's skills and custom agents, read afresh (the files may have changed)."""
        self.people.require(identity, Action.WATCH)
        if self.catalog is None:
            return {"skills": [], "agents": [], "problems": []}
        return self.catalog.refresh().to_json()

    def read_transcript(self, identity: Identity) -> str:
        self.people.require(identity, Action.READ_TRANSCRIPT)
        return self.transcript.read_text()

    async def export_transcript(self, identity: Identity, fmt: export.Format) -> str:
        """The whole transcript as a notebook, Markdown or JSONL (rendered in a thread)."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        text = self.transcript.read_text()
        return await asyncio.to_thread(export.render, text, fmt, time.time())

    async def transcript_page(self, identity: Identity, before: int, limit: int) -> list[bytes]:
        """The last `limit` records with seq < `before` (the JSONL lines, ascending)."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        return await self.transcript.page(before, limit)

    async def history_page(self, identity: Identity, before: int, limit: int) -> dict:
        """The `limit` newest entries evicted from the document with seq < `before`."""
        self.people.require(identity, Action.WATCH)
        entries, more = await self.history.page(before, limit)
        return {"entries": entries, "more": more}

    # -- prompts, requests, abort ----------------------------------------------------------------

    def _check_text(self, text: str, what: str) -> None:
        """A prompt's or a chat message's text: something visible, within `max_prompt_chars`
        (the same limit and errors for both, so the panel handles them alike)."""
        if not visible(text):
            raise InvalidRequest(f"The {what} is empty.", code="empty_prompt")
        limit = self.settings.current.max_prompt_chars
        if len(text) > limit:
            raise TooLarge(
                f"The {what} has {len(text)} characters; the room takes at most {limit}.",
                code="prompt_too_long",
            )

    def submit(self, identity: Identity, body: PromptBody) -> tuple[str, int]:
        self.people.require(identity, Action.SUBMIT)
        self._check_text(body.text, "prompt")
        settings = self.settings.current
        context.check(body.chips, self.turns.notebooks)
        attached = self.attachments.resolve(
            [(a.id, a.path, a.name) for a in body.attachments or ()], self.turns.notebooks
        )
        budgets.check(self.budgets, self.usage_today(), identity.username)
        waiting = self.queue.waiting_by(identity.username)
        if waiting >= settings.max_waiting_prompts:
            raise TooMany(
                f"You have {waiting} prompts waiting, as many as one person may; submit more "
                "when one of them has started (or withdraw one).",
                code="too_many_waiting",
            )
        # Last of the checks, first to write: an output's image joins the attachments' store.
        chips = context.store_images(body.chips, self.attachments)
        prompt_id = uuid.uuid4().hex
        record = self.recorder.commit(
            "prompt.submitted",
            identity.username,
            PromptSubmitted(
                id=prompt_id,
                text=body.text,
                target=body.target,
                origin=body.origin,
                chips=chips or None,
                attachments=attached or None,
            ),
        )
        self.queue.submit(
            prompt_id,
            identity.username,
            body.text,
            body.target,
            record.ts,
            chips,
            attached,
        )
        position = self.queue.position(prompt_id)
        self.turns.wake()
        return prompt_id, position

    async def upload(self, identity: Identity, data: bytes, declared: str) -> Upload:
        """An image for a prompt, checked whole and stored once (`attachments.py`)."""
        self.people.require(identity, Action.SUBMIT)
        return await asyncio.to_thread(self.attachments.add, data, declared)

    def attachment(self, identity: Identity, image_id: str) -> tuple[Path, str]:
        """A stored image and its type, for everyone admitted (viewers see the transcript)."""
        self.people.require(identity, Action.WATCH)
        return self.attachments.path(image_id), self.attachments.describe(image_id).mime

    def say(self, identity: Identity, body: ChatBody) -> str:
        """A chat message to the room: recorded, shown in the transcript, never sent to the
        agent. Viewers may chat only while `viewers_can_chat` is on."""
        if not rules.may(self.people.check_in(identity), Action.CHAT, self.terms()):
            self.people.require(identity, Action.CHAT)  # refuses with the role's own words
        self._check_text(body.text, "message")
        message_id = uuid.uuid4().hex
        self.recorder.commit(
            "chat.message", identity.username, ChatMessage(id=message_id, text=body.text)
        )
        return message_id

    # -- checkpoints -----------------------------------------------------------------------------

    async def checkpoint_diff(self, identity: Identity, commit: str) -> dict:
        """`GET checkpoints/<commit>/diff`: what a turn changed, as a unified diff."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        prompt_id, author = await self.checkpoints.find(commit)
        diff = await self.checkpoints.diff(commit)
        return {"commit": commit, "prompt_id": prompt_id, "author": author, "diff": diff}

    async def revert(self, identity: Identity, commit: str) -> dict:
        """`POST checkpoints/<commit>/revert`: the turn's files as they were before it, recorded
        as a new checkpoint; a host, or the turn's author while `authors_can_revert` is on."""
        role = self.people.require(identity, Action.READ_TRANSCRIPT)
        prompt_id, author = await self.checkpoints.find(commit)
        if not rules.may_revert(role, identity.username, author, self.terms()):
            raise NotAllowed(
                "Only a host can revert a turn"
                + (
                    " (or its author, if a host allows it)." if author == identity.username else "."
                ),
                code="not_allowed_to_revert",
            )
        if self.turns.running is not None:
            raise Conflict("A turn is running: revert once it has ended.", code="turn_running")
        name = self.document.display_name(identity.username)
        _, made = await self.checkpoints.revert(commit, Author(identity.username, name))
        self.recorder.commit(
            "turn.reverted",
            identity.username,
            TurnReverted(
                prompt_id=prompt_id,
                author=author,
                reverted=commit,
                commit=made.commit,
                files=list(made.files),
            ),
        )
        return {"commit": made.commit, "files": list(made.files)}

    async def steer(self, identity: Identity, prompt_id: str, body: SteerBody) -> str:
        """A steering message into the running turn, from its author or a host: recorded,
        then said to the agent at once (its open approval cards stay open)."""
        role = self.people.require(identity, Action.STEER_OWN)
        turn = self.turns.running
        if turn is None or turn.prompt.id != prompt_id:
            raise Conflict(
                "That prompt is not running: only a running turn can be steered.",
                code="not_running",
            )
        if turn.stop is not None:
            raise Conflict("This turn is being stopped.", code="already_aborting")
        if not rules.may_steer(role, identity.username, turn.prompt.author):
            raise NotAllowed(
                "Only the prompt's author or a host can steer its turn.", code="not_your_turn"
            )
        self._check_text(body.text, "steering message")
        steering_id = uuid.uuid4().hex
        self.recorder.commit(
            "prompt.steered",
            identity.username,
            Steering(id=steering_id, prompt_id=prompt_id, text=body.text),
        )
        assert self.agent is not None  # a turn runs
        try:
            await self.agent.steer(identity.username, body.text)
        except Exception as err:
            log.warning("A steering message could not reach the agent: %s", err)
            self.recorder.commit(
                "system",
                None,
                SystemNote(text=f"The steering message did not reach the agent: {err}"),
            )
        return steering_id

    async def describe_model(self, identity: Identity) -> dict:
        """The model that answers the next turns and those a host may switch to."""
        self.people.require(identity, Action.WATCH)
        models = await self.agent.models() if self.agent is not None else []
        return {"model": self.document.meta.get("model"), "models": models}

    async def choose_model(self, identity: Identity, body: ModelBody) -> dict:
        """A host's switch of the model for the next turns: recorded, said to the agent."""
        self.people.require(identity, Action.CHOOSE_MODEL)
        if self.agent is None:
            raise Conflict("This room has no agent.", code="no_agent")
        models = await self.agent.models()
        if body.model not in models:
            offered = ", ".join(models) if len(models) > 1 else "none (no choice of model)"
            raise InvalidRequest(
                f"{body.model!r} is not a model this room offers. It offers: {offered}.",
                code="unknown_model",
            )
        if body.model != (self.model or self.document.meta.get("model")):
            self.recorder.commit("model.changed", identity.username, ModelChanged(model=body.model))
            self.model = body.model
            await self.agent.use_model(body.model)
        return {"model": body.model, "models": models}

    # -- signing in to Copilot (hosts; demo mode) -------------------------------------------------

    def describe_signin(self, identity: Identity) -> dict:
        self.people.require(identity, Action.SIGN_IN)
        return self.signin.describe()

    async def begin_signin(self, identity: Identity) -> dict:
        self.people.require(identity, Action.SIGN_IN)
        return await self.signin.begin(identity.username)

    async def deliver_signin(self, identity: Identity, landed: str) -> dict:
        self.people.require(identity, Action.SIGN_IN)
        return await self.signin.deliver(landed)

    async def allow_signin(self, identity: Identity) -> dict:
        self.people.require(identity, Action.SIGN_IN)
        return await self.signin.allow(identity.username)

    async def cancel_signin(self, identity: Identity) -> dict:
        self.people.require(identity, Action.SIGN_IN)
        return await self.signin.cancel(identity.username)

    async def sign_out(self, identity: Identity) -> None:
        self.people.require(identity, Action.SIGN_IN)
        if not await self.signin.sign_out(identity.username):
            raise Conflict(
                "The room has no Copilot login the panel can sign out (a token in the server's "
                "environment, or a provider, is the server's to change).",
                code="no_copilot_login",
            )

    # -- usage and budgets -----------------------------------------------------------------------

    def usage_today(self) -> dict:
        """Today's (UTC) usage per person and for the room, as the records sum it."""
        return budgets.today(self.document.meta.get("usage"), self.clock())

    def describe_usage(self, identity: Identity) -> dict:
        """`GET budgets`: today's usage, the caps, and when they reset."""
        self.people.require(identity, Action.WATCH)
        usage = self.usage_today()
        return {
            **usage,
            "caps": self.budgets.model_dump(),
            "resets_at": budgets.resets_at(usage["day"]),
        }

    def lift_budget(self, identity: Identity, username: str) -> dict:
        """A host lifts `username`'s per-person cap for the rest of today (recorded)."""
        self.people.require(identity, Action.MANAGE_PEOPLE)
        if self.document.participants.get(username) is None:
            raise NotFound(
                f"Nobody called {username!r} has been in this room.", code="no_such_person"
            )
        usage = self.usage_today()
        if username not in usage["lifted"]:
            self.recorder.commit(
                "budget.lifted", identity.username, BudgetLift(username=username, day=usage["day"])
            )
        return self.describe_usage(identity)

    async def withdraw(self, identity: Identity, prompt_id: str) -> None:
        role = self.people.require(identity, Action.WITHDRAW_OWN)
        may_withdraw_any = can(role, Action.WITHDRAW_ANY)
        try:
            self.queue.check_withdraw(
                prompt_id, identity.username, may_withdraw_any=may_withdraw_any
            )
        except NotFound:
            await self._refuse_as_before(prompt_id, identity.username, may_withdraw_any)
            raise
        record = self.recorder.commit(
            "prompt.withdrawn", identity.username, PromptRef(id=prompt_id)
        )
        self.queue.withdraw(
            prompt_id, identity.username, may_withdraw_any=may_withdraw_any, now=record.ts
        )

    async def _refuse_as_before(self, prompt_id: str, by: str, may_withdraw_any: bool) -> None:
        """The queue forgets finished prompts: one is refused as the queue would refuse it
        (403 not_your_prompt or 409 not_pending, not 404), in the state its records replayed
        into a queue of its own leave it. Returns if the transcript has no such prompt."""
        past = PromptQueue()
        last: QueuedPrompt | None = None
        for record, payload in await self.transcript.records_with_id(prompt_id):
            with contextlib.suppress(RoomError, RuntimeError):  # the room's replay logged it
                last = replay_prompt(record, payload, past) or last
        if last is not None:
            check_withdraw_prompt(last, by, may_withdraw_any=may_withdraw_any)

    def start_agent(self, identity: Identity) -> None:
        """A host's retry of an agent that could not start (no server restart needed)."""
        self.people.require(identity, Action.START_AGENT)
        self.turns.retry(identity.username)

    async def abort(self, identity: Identity) -> None:
        self.people.require(identity, Action.ABORT)
        await self.turns.abort(identity.username)

    def answer_permission(
        self, identity: Identity, request_id: str, approve: bool, feedback: str | None
    ) -> None:
        role = self.people.require(identity, Action.ANSWER_OWN)
        self.desk.answer_permission(
            request_id,
            identity.username,
            role=role,
            approve=approve,
            feedback=feedback,
        )

    def answer_question(self, identity: Identity, request_id: str, answer: str) -> None:
        role = self.people.require(identity, Action.ANSWER_OWN)
        self.desk.answer_question(request_id, identity.username, role=role, answer=answer)
