"""The room's route table: every URL the extension serves and the handler behind it. Each
per-room command is served twice, as `copilot-room/api/<command>` (main's) and
`copilot-room/api/rooms/<name>/<command>`, from one list, so a command added for one room exists
for every room; the rooms, main's Copilot sign-in and the host claim are the server's, served
once. `app.py` builds the handlers' shared `RoomContext` from its configuration and hands it here.
"""

from __future__ import annotations

from typing import Any

from ..agent.notebook_mcp import PATH
from . import (
    agent,
    budgets,
    channels,
    checkpoints,
    github,
    people,
    prompts,
    requests,
    rooms_handlers,
    settings_handlers,
    signin,
    teams,
    threads,
    transcript,
)
from .notebook_tools import NotebookToolsHandler
from .room_handler import RoomContext
from .websocket import RoomWebSocketHandler

_USERNAME = r"(?P<username>[^/]+)"
_ID = r"(?P<item_id>[A-Za-z0-9_-]+)"
_SERVICE = r"(?P<service>[a-z]+)"  # a chat service: slack, teams
_ROOM = r"(?P<room_name>[^/]+)"  # any segment: a name that is no room is a clear 404
API = "copilot-room/api"

#: The commands of one room, relative to its prefix.
PER_ROOM = [
    ("room", rooms_handlers.RoomStateHandler),
    ("prompts", prompts.PromptsHandler),
    (f"prompts/{_ID}", prompts.PromptHandler),
    ("attachments", prompts.AttachmentsHandler),
    (f"attachments/{_ID}", prompts.AttachmentHandler),
    (f"prompts/{_ID}/steer", prompts.SteerHandler),
    ("model", agent.ModelHandler),
    ("messages", prompts.MessagesHandler),
    (f"checkpoints/{_ID}/diff", checkpoints.CheckpointDiffHandler),
    (f"checkpoints/{_ID}/revert", checkpoints.CheckpointRevertHandler),
    (f"approvals/{_ID}", requests.ApprovalHandler),
    (f"approvals/{_ID}/details", requests.ApprovalDetailsHandler),
    (f"questions/{_ID}", requests.QuestionHandler),
    ("abort", agent.AbortHandler),
    ("agent/start", agent.AgentStartHandler),
    ("participants", people.ParticipantsHandler),
    (f"participants/{_USERNAME}", people.ParticipantHandler),
    (f"admissions/{_USERNAME}", people.AdmissionHandler),
    ("door", people.DoorHandler),
    ("budgets", budgets.BudgetsHandler),
    (f"budgets/{_USERNAME}/lift", budgets.BudgetLiftHandler),
    ("settings", settings_handlers.SettingsHandler),
    ("transcript", transcript.TranscriptHandler),
    ("history", transcript.HistoryHandler),
    ("catalog", agent.CatalogHandler),
    ("threads", threads.ThreadsHandler),
    (f"threads/{_ID}", threads.ThreadHandler),
    (f"threads/{_ID}/transcript", threads.ThreadTranscriptHandler),
    (f"threads/{_ID}/people", threads.ThreadPeopleHandler),
    (f"threads/{_ID}/prompts", threads.ThreadPromptsHandler),
    (f"threads/{_ID}/diff", threads.ThreadChangesHandler),
    (f"threads/{_ID}/promote", threads.ThreadPromoteHandler),
    ("github/pull", github.PullLinkHandler),
    (f"channels/{_SERVICE}", channels.ChannelLinkHandler),
]

#: A room's commands that work in one of its threads too, under `threads/<id>/`.
IN_THREADS = [
    (f"prompts/{_ID}", prompts.PromptHandler),
    (f"prompts/{_ID}/steer", prompts.SteerHandler),
    ("messages", prompts.MessagesHandler),
    ("attachments", prompts.AttachmentsHandler),
    (f"attachments/{_ID}", prompts.AttachmentHandler),
    ("abort", agent.AbortHandler),
    (f"checkpoints/{_ID}/diff", checkpoints.CheckpointDiffHandler),
    (f"checkpoints/{_ID}/revert", checkpoints.CheckpointRevertHandler),
]
PER_ROOM += [
    (rf"threads/(?P<thread_id>[A-Za-z0-9_-]+)/{path}", handler) for path, handler in IN_THREADS
]

#: Server-level: the rooms, main's Copilot sign-in and the host claim.
SERVER_LEVEL = [
    (f"{API}/rooms", rooms_handlers.RoomsHandler),
    (f"{API}/signin", signin.SignInHandler),
    (f"{API}/signin/return", signin.SignInReturnHandler),
    (f"{API}/signin/allow", signin.SignInAllowHandler),
    (f"{API}/signin/cancel", signin.SignInCancelHandler),
    (f"{API}/signout", signin.SignOutHandler),
    (f"{API}/claim", people.ClaimAPIHandler),
    (f"{API}/doctor", settings_handlers.DoctorHandler),
    (f"{API}/link-code", people.LinkCodeHandler),
    (f"{API}/chat-links", people.ChatLinksHandler),
    (f"{API}/chat-links/asks/{_ID}", people.ChatLinkAskHandler),
    (rf"{API}/chat-links/(?P<service>[a-z]+)/(?P<user>[^/]+)", people.ChatLinkHandler),
    ("copilot-room/claim", people.ClaimHandler),
    ("copilot-room/github/webhook", github.WebhookHandler),
    ("copilot-room/teams/messages", teams.TeamsMessagesHandler),
]


def routes(context: RoomContext) -> list[tuple[str, type, dict[str, Any]]]:
    """Every `(route, handler, kwargs)` of the extension, each handler given `context`."""
    kwargs = {"context": context}
    agents = [(PATH, NotebookToolsHandler, {"tools": context.notebook_tools})]
    return agents + [
        (route, handler, kwargs)
        for route, handler in [
            *SERVER_LEVEL,
            *((f"{API}/{path}", handler) for path, handler in PER_ROOM),  # main's
            *((f"{API}/rooms/{_ROOM}/{path}", handler) for path, handler in PER_ROOM),
            ("copilot-room/ws", RoomWebSocketHandler),
            (f"copilot-room/ws/threads/{_ID}", threads.ThreadWebSocketHandler),
            (f"copilot-room/ws/{_ROOM}", RoomWebSocketHandler),
            (f"copilot-room/ws/{_ROOM}/threads/{_ID}", threads.ThreadWebSocketHandler),
        ]
    ]
