"""What a turn costs in AI Credits (issue 29), from the runtime's `assistant.usage` events to the
prompt author's daily sums and an `ai_credits` cap.

The real runtime reports no AI Credits for the tests' scripted model (a provider's model: its
usage events carry no `copilotUsage`; `test_budgets.py` checks that end to end), so the
arithmetic is tested here on usage events as the runtime sends them for a Copilot login, parsed
by the SDK's own event parser."""

import time
import uuid

import pytest
from copilot.generated.session_events import session_event_from_dict

from jupyter_copilot_room.agent.copilot.translate import EventTranslator
from jupyter_copilot_room.events import PromptRef, PromptSubmitted, TurnUsage
from jupyter_copilot_room.room.budgets import budget_caps as budgets
from jupyter_copilot_room.room.budgets.budget_caps import BudgetExceeded, Budgets
from jupyter_copilot_room.room.live.document import RoomDocument
from jupyter_copilot_room.room.persistence.transcript_file import Record


def usage_event(nano_aiu: int | None, *, cost: float = 1, agent_id: str | None = None) -> object:
    """An `assistant.usage` event of one model call, on the wire as the runtime sends it."""
    data: dict = {"model": "gpt-5.2", "inputTokens": 1200, "outputTokens": 80, "cost": cost}
    if nano_aiu is not None:
        data["copilotUsage"] = {
            "totalNanoAiu": nano_aiu,
            "tokenDetails": [
                {
                    "batchSize": 1000,
                    "costPerBatch": 250_000,
                    "tokenCount": 1200,
                    "tokenType": "input",
                },
            ],
        }
    return session_event_from_dict(
        {
            "type": "assistant.usage",
            "id": str(uuid.uuid4()),
            "timestamp": "2026-12-03T10:00:00.000Z",
            "data": data,
            **({"agentId": agent_id} if agent_id else {}),
        }
    )


def turn_usage(*events):
    translator = EventTranslator()
    translator.begin_turn()
    for event in events:
        assert translator.translate(event) == []  # usage is summed, not streamed
    [usage, _ended] = translator.end_turn()
    return usage


def test_a_turns_ai_credits_are_its_calls_nano_aiu_summed_sub_agents_included():
    usage = turn_usage(
        usage_event(420_000_000),
        usage_event(80_000_000, agent_id="test-writer"),  # a sub-agent's call, same turn
        usage_event(1_500_000_000, cost=3),
    )
    assert usage.ai_credits == pytest.approx(2.0)
    assert usage.premium_requests == 5
    assert (usage.model_calls, usage.input_tokens, usage.output_tokens) == (3, 3600, 240)


def test_a_turn_whose_calls_reported_no_credits_says_none_rather_than_zero():
    """Your own provider: credits do not apply, which is not the same as a free turn."""
    assert turn_usage(usage_event(None, cost=0), usage_event(None, cost=0)).ai_credits is None
    assert turn_usage(usage_event(0)).ai_credits == 0


def test_credits_are_booked_to_the_author_and_an_ai_credits_cap_refuses_their_next_prompt():
    now = time.time()
    # bob's turn ran on a provider (nothing reported), then alice's second on a provider too.
    spent = [("alice", 1.2), ("bob", None), ("alice", None)]
    records = []
    for n, (author, credits) in enumerate(spent):
        records += [
            ("prompt.submitted", PromptSubmitted(id=f"p{n}", text="hi"), author),
            ("prompt.started", PromptRef(id=f"p{n}"), author),
            ("usage", budgets_usage(f"p{n}", author, credits), None),
        ]
    document = RoomDocument()
    for seq, (kind, payload, actor) in enumerate(records, start=1):
        dumped = payload.model_dump(exclude_none=True)
        document.apply(Record(seq=seq, ts=now, kind=kind, actor=actor, payload=dumped), payload)

    usage = budgets.today(document.meta.get("usage"), now)
    assert usage["people"]["alice"]["ai_credits"] == pytest.approx(1.2)
    assert budgets.amount(usage["people"]["bob"], "ai_credits") == 0
    assert usage["room"]["ai_credits"] == pytest.approx(1.2)

    caps = Budgets.from_config({"per_person": {"ai_credits": 1}})
    with pytest.raises(BudgetExceeded) as refused:
        budgets.check(caps, usage, "alice")
    assert refused.value.details["cap"] == {
        "scope": "per_person",
        "unit": "ai_credits",
        "limit": 1,
        "used": pytest.approx(1.2),
    }
    assert "1.2 of 1 AI Credits today" in str(refused.value)
    budgets.check(caps, usage, "bob")  # a provider's turns never reach a credits cap


def budgets_usage(prompt_id: str, author: str, credits: float | None) -> TurnUsage:
    return TurnUsage(
        prompt_id=prompt_id,
        author=author,
        model="gpt-5.2",
        input_tokens=10,
        output_tokens=2,
        model_calls=1,
        ai_credits=credits,
    )
