"""The server's secrets, kept out of everything the room records: the second line of defence
behind the agent's allow-listed environment (`agent/environment.py`).

A command can still find a secret elsewhere (a file, the server's own `/proc/<pid>/environ`) and
print it, and a model can repeat it. So every record's text is searched for the values of the
known secrets as the server started with them (the server's token, the hub's, a Copilot login,
the provider's key; at least `MIN_LENGTH` characters, shorter ones would match ordinary words)
and each is replaced by `[redacted: NAME]` before the record is written (`Recorder.commit`):
the transcript, the document, the export and the Jupyter Events all derive from the record.
A reply still streaming goes to the document only (no record), so its deltas are redacted as
they come (`streamed`): the last characters that could begin a secret wait for the next delta,
so a secret split across deltas never shows either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

#: The variables that hold a secret wherever the server runs.
SECRET_VARIABLES = (
    "JUPYTERHUB_API_TOKEN",
    "JPY_API_TOKEN",
    "JUPYTER_TOKEN",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
)
MIN_LENGTH = 8


class Redactor:
    def __init__(self, secrets: Mapping[str, str] | None = None):
        """`secrets`: name -> value; values too short to be told from words are left out."""
        found = {value: name for name, value in (secrets or {}).items() if len(value) >= MIN_LENGTH}
        # Longest first, so a secret that holds another is replaced whole.
        self._secrets = sorted(found.items(), key=lambda item: -len(item[0]))

    @classmethod
    def of_server(
        cls,
        environ: Mapping[str, str],
        key_variable: str = "",
        server_token: str = "",
        passed: Iterable[str] = (),
    ) -> Redactor:
        """The secrets of this server as it starts: the usual variables, the provider's key
        variable (`c.CopilotRoom.provider['api_key_env']`), those passed to ACP agents
        (`env_from`) and jupyter_server's token (which it may have made up itself, so it is in
        no variable)."""
        names = [*SECRET_VARIABLES, *([key_variable] if key_variable else []), *passed]
        secrets = {name: environ[name] for name in names if environ.get(name)}
        if server_token and server_token not in secrets.values():
            secrets["the Jupyter server's token"] = server_token
        return cls(secrets)

    def text(self, text: str) -> str:
        for value, name in self._secrets:
            if value in text:
                text = text.replace(value, f"[redacted: {name}]")
        return text

    def streamed(self, held: str, delta: str) -> tuple[str, str]:
        """What of a stream to show now, and what to hold until its next delta (or its end):
        `held` is what the last call held."""
        text = self.text(held + delta)
        cut = len(text) - self._secret_start(text)
        return text[:cut], text[cut:]

    def _secret_start(self, text: str) -> int:
        """How many characters at the end of `text` may begin a secret (the longest end that
        is the start of one): only those wait, so a reply streams as it comes."""
        longest = 0
        for value, _ in self._secrets:
            for length in range(min(len(value) - 1, len(text)), longest, -1):
                if text.endswith(value[:length]):
                    longest = length
                    break
        return longest

    def payload(self, payload: Any) -> Any:
        """`payload` (a record's pydantic model, or what its fields hold) with every string
        redacted; the same object when nothing was, so the common case costs one scan."""
        if not self._secrets:
            return payload
        if isinstance(payload, str):
            return self.text(payload)
        if isinstance(payload, BaseModel):
            changed = {}
            for name in type(payload).model_fields:
                value = getattr(payload, name)
                if (clean := self.payload(value)) is not value:
                    changed[name] = clean
            return payload.model_copy(update=changed) if changed else payload
        if isinstance(payload, list | tuple):
            items = [self.payload(item) for item in payload]
            same = all(a is b for a, b in zip(items, payload, strict=True))
            return payload if same else type(payload)(items)
        if isinstance(payload, dict):
            pairs = {self.payload(k): self.payload(v) for k, v in payload.items()}
            same = all(a is b for a, b in zip(pairs.values(), payload.values(), strict=True))
            return payload if same and list(pairs) == list(payload) else pairs
        return payload
