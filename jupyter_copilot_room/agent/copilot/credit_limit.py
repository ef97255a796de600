"""The runtime's own AI Credits limit on a room's session: a backstop to the room's daily caps.

The room checks its caps when a prompt is submitted, so one long turn could spend past them. The
runtime (SDK 1.0.27, experimental) takes a limit per session (`session_limits`) and, when the
session's count reaches it, stops before the next model call and asks
(`session_limits_exhausted.requested`). The room answers from its own count, whatever the
runtime's accounting window: the limit moves up to what the turn's author may still spend today,
or, with nothing left, the blocked call is cancelled and the turn fails saying why. With your own
provider the runtime counts no credits, so the limit never trips.

The runtime takes no limit under 30 AI Credits ("Minimum session limit is 30 AI credits", a
failed `session.create`): a session opens with at least that, so under a smaller daily cap the
backstop first asks once 30 are spent, and until then the room's check at submit is the guard.
"""

from __future__ import annotations

from copilot.generated.rpc import (
    UIHandlePendingSessionLimitsExhaustedRequest,
    UISessionLimitsExhaustedResponse,
    UISessionLimitsExhaustedResponseAction,
)

CAP_SPENT = (
    "This turn reached today's AI Credits cap, so the room stopped it before its next model call "
    "(c.CopilotRoom.budgets; a host can lift a person's cap for the day in People)."
)


#: The smallest limit the runtime accepts (probed with the pinned runtime).
RUNTIME_MINIMUM = 30.0


def opening_limits(left: float | None) -> dict | None:
    """The session's `session_limits` when it opens: what may still be spent today, or the
    runtime's minimum."""
    return None if left is None else {"max_ai_credits": max(left, RUNTIME_MINIMUM)}


def answer(
    request_id: str, used: float, left: float | None
) -> UIHandlePendingSessionLimitsExhaustedRequest:
    """The room's answer to the runtime's ask, `used` by the session so far and `left` to the
    turn's author today (this turn's spending already taken off; None: no cap in credits)."""
    Action = UISessionLimitsExhaustedResponseAction
    if left is None:
        response = UISessionLimitsExhaustedResponse(Action.UNSET)
    elif left <= 0:
        response = UISessionLimitsExhaustedResponse(Action.CANCEL)
    else:
        response = UISessionLimitsExhaustedResponse(Action.SET, max_ai_credits=used + left)
    return UIHandlePendingSessionLimitsExhaustedRequest(request_id, response)
