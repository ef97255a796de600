"""The setup's check-up: `jupyter copilot-room doctor` and, for hosts, `GET doctor`. For the
Copilot runtime and login, each configured front (GitHub, Slack, Teams) and each ACP agent, one
line of what works or, when something configured cannot work, what to do; never a secret's
value. `checkup.py` gathers the checks from the server's own configuration (`Setup`); each
thing checked has its module beside it."""

from .checkup import Setup, examine, examined
from .finding import Check, report

__all__ = ["Check", "Setup", "examine", "examined", "report"]
