"""The runtime's own AI Credits limit on a room's session (issue 29): a backstop to the room's
daily caps, which the room checks only at submit. The session opens with the limit the caps
leave for today, at least the runtime's minimum of 30 (end to end: the real runtime reports it
back); when the runtime says the session
spent it, the room raises it to what the turn's author may still spend, or cancels the call.

The runtime never trips the limit for the tests' scripted model (a provider's: it counts no
credits), so the answers are tested on the room's arithmetic and the SDK's own request types."""

import pytest
from copilot.generated.rpc import UISessionLimitsExhaustedResponseAction as Action

from jupyter_copilot_room.agent.copilot import credit_limit
from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.room.budgets import budget_caps as budgets
from jupyter_copilot_room.room.budgets.budget_caps import Budgets

from .harness.helpers import eventually, finished, ready


@pytest.fixture
def room_config(copilot_config, request):
    return {**copilot_config, "budgets": {"room": {"ai_credits": request.param}}}


@pytest.mark.parametrize(("room_config", "limit"), [(45, 45), (5, 30)], indirect=["room_config"])
async def test_the_session_opens_with_what_the_rooms_cap_leaves_today(api, room, model, limit):
    model.script = lambda request: Reply("Done.")
    await ready(api, room)
    asked = (await api("alice", "POST", "prompts", body={"text": "hello"})).json
    await eventually(lambda: asked["id"] in finished(room), timeout=30, what="the turn")
    snapshot = await room.agent.connection.session.rpc.metadata.snapshot()
    assert snapshot.session_limits is not None, "the runtime holds no limit for the session"
    assert snapshot.session_limits.max_ai_credits == pytest.approx(limit)


def usage(room_spent: float, people: dict[str, float], lifted=()) -> dict:
    return {
        "day": "2026-12-04",
        "room": {"ai_credits": room_spent},
        "people": {who: {"ai_credits": spent} for who, spent in people.items()},
        "lifted": list(lifted),
    }


def test_what_is_left_is_the_tighter_of_the_rooms_cap_and_the_authors():
    caps = Budgets.from_config({"per_person": {"ai_credits": 2}, "room": {"ai_credits": 5}})
    today = usage(4.5, {"alice": 1.5, "bob": 3})
    assert budgets.credits_left(caps, today, "alice") == pytest.approx(0.5)
    assert budgets.credits_left(caps, today, None) == pytest.approx(0.5)
    assert budgets.credits_left(caps, usage(1, {"bob": 3}), "bob") == pytest.approx(-1)
    assert budgets.credits_left(caps, usage(1, {"bob": 3}, ["bob"]), "bob") == pytest.approx(4)
    assert budgets.credits_left(Budgets.from_config({"room": {"tokens": 9}}), today, "bob") is None


def test_the_room_raises_the_limit_to_what_is_left_or_cancels_the_call():
    raised = credit_limit.answer("r1", used=5.0, left=1.25)
    assert raised.request_id == "r1"
    assert raised.response.action is Action.SET
    assert raised.response.max_ai_credits == pytest.approx(6.25)
    assert credit_limit.answer("r2", used=5.0, left=0).response.action is Action.CANCEL
    assert credit_limit.answer("r3", used=5.0, left=-0.5).response.action is Action.CANCEL
    assert credit_limit.answer("r4", used=5.0, left=None).response.action is Action.UNSET
    # The runtime refuses a limit under 30 (a failed session.create): never less is asked.
    assert credit_limit.opening_limits(5) == {"max_ai_credits": 30.0}
    assert credit_limit.opening_limits(-1) == {"max_ai_credits": 30.0}
    assert credit_limit.opening_limits(None) is None
