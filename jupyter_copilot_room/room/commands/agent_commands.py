"""The room's commands about its agent: the model that answers, the Copilot sign-in (hosts, demo
mode), and today's usage against the budgets.
"""

from __future__ import annotations

from ...access.identity import Identity
from ...access.roles import Action
from ...agent.seam import Agent
from ...errors import (
    Conflict,
    InvalidRequest,
    NotFound,
)
from ...events import (
    BudgetLift,
    ModelChanged,
)
from ...request_bodies import ModelBody
from ..budgets import budget_caps
from ..budgets.budget_caps import Budgets
from ..budgets.spending import Spending
from ..copilot_signin import SignIn
from ..live.document import RoomDocument
from ..people.participants import People
from ..persistence.recorder import Recorder


class AgentCommands:
    """The model, the Copilot sign-in and the day's usage; owns which model a host chose."""

    def __init__(
        self,
        *,
        people: People,
        agent: Agent | None,
        document: RoomDocument,
        recorder: Recorder,
        signin: SignIn,
        budgets: Budgets,
        spending: Spending,
    ):
        self.people = people
        self.agent = agent
        self.document = document
        self.recorder = recorder
        self.signin = signin
        self.budgets = budgets
        self.spending = spending
        self.model: str | None = None  # the model a host chose (None: the agent's own)

    async def restore_model(self, model: str | None) -> None:
        """At the start: the host's choice the transcript holds outlives the server."""
        self.model = model
        if self.agent is not None and model:
            await self.agent.use_model(model)

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

    def describe_usage(self, identity: Identity) -> dict:
        """`GET budgets`: today's usage, the caps, when they reset, and whether the agent's
        model calls cost AI Credits (false with your own provider: tokens only)."""
        self.people.require(identity, Action.WATCH)
        usage = self.spending.today()
        return {
            **usage,
            "caps": self.budgets.model_dump(),
            "resets_at": budget_caps.resets_at(usage["day"]),
            "ai_credits_apply": self.document.meta.get("ai_credits_apply"),
        }

    def lift_budget(self, identity: Identity, username: str) -> dict:
        """A host lifts `username`'s per-person cap for the rest of today (recorded)."""
        self.people.require(identity, Action.MANAGE_PEOPLE)
        if self.document.participants.get(username) is None:
            raise NotFound(
                f"Nobody called {username!r} has been in this room.", code="no_such_person"
            )
        usage = self.spending.today()
        if username not in usage["lifted"]:
            self.recorder.commit(
                "budget.lifted", identity.username, BudgetLift(username=username, day=usage["day"])
            )
        return self.describe_usage(identity)
