"""The audit trail as Jupyter Events: every record the room commits, emitted on the server's
`event_logger`, so a deployment ships it to its own logging without reading `transcript.jsonl`.

Each record kind has a registered schema, `https://events.jupyter.org/jupyter_copilot_room/
<kind>/v1`, generated from the kind's payload class in `events.RECORD_PAYLOADS` (one source of
truth) and shipped in `event_schemas/<kind>/v1.json` (`python -m jupyter_copilot_room.eventlog`
writes them; a test checks they match). An event is the record's envelope (`seq`, `ts`, `kind`,
`actor`, `chain`) with its `payload`, and the `room` whose transcript holds it.

Fields that name a person or carry what someone wrote (`PERSONAL`) are marked `personal-data` in
the schemas, as jupyter_server marks its own. jupyter_events 0.12 no longer redacts by category,
so with `CopilotRoom.redact_event_personal_data` the room replaces them itself (a jupyter_events
modifier): a deployment gets what happened and when, not who or what was said.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, get_args

from jupyter_events import EventLogger

from .events import RECORD_PAYLOADS, Record
from .events.consumers import rebuilds
from .events.records import RecordKind
from .room.persistence.recorder import Recorder

#: Every record is an event, by construction (`write_schemas` writes one schema a kind), so the
#: event log handles each kind there is (`events/consumers.py`).
RECORDS = rebuilds("eventlog", handles=get_args(RecordKind), ignores=())

log = logging.getLogger(__name__)

SCHEMAS = Path(__file__).parent / "event_schemas"
VERSION = 1

#: Fields that name a person or carry what someone (or the agent, quoting them) wrote.
PERSONAL = frozenset(
    {"actor", "username", "display_name", "avatar_url", "author", "text", "feedback", "answer"}
    | {"chips"}  # what a person pointed at: paths, an output's text or image
    | {"attachments"}  # the names of the images and the paths of the files a person sent
)
REDACTED = "[redacted]"


def schema_id(kind: str) -> str:
    return f"https://events.jupyter.org/jupyter_copilot_room/{kind}/v{VERSION}"


def schema_of(kind: str) -> dict[str, Any]:
    """The Jupyter Events schema of one record kind, from its payload class."""
    model = RECORD_PAYLOADS[kind]
    payload = _inline(model.model_json_schema())
    payload["description"] = f"The {kind} record's payload ({model.__name__})."
    _mark_personal(payload)
    return {
        "$id": schema_id(kind),
        "version": str(VERSION),
        "title": f"Copilot room: {kind}",
        "description": (
            f"A `{kind}` record of the Copilot room's transcript (its audit trail), emitted "
            "when the room committed it."
        ),
        "personal-data": True,
        "type": "object",
        "required": ["seq", "ts", "kind", "payload"],
        "properties": {
            "seq": {"type": "integer", "description": "The record's place in the transcript."},
            "ts": {"type": "number", "description": "When it was recorded (Unix seconds)."},
            "kind": {"const": kind, "description": "The record kind."},
            "actor": {
                "type": ["string", "null"],
                "description": "The username who acted, or null for the room or the agent.",
                "personal-data": True,
            },
            "source": {
                "type": ["string", "null"],
                "description": "Where the actor acted from when not from JupyterLab (a bridge: "
                "`slack`, `teams`), as the in-process API's `Person.source` said.",
            },
            "chain": {
                "type": ["string", "null"],
                "description": "The transcript's hash chain after this record.",
            },
            "room": {
                "type": "string",
                "description": "The room whose transcript holds the record (`main` for the "
                "room of the server's root; seq and chain are that transcript's).",
            },
            "payload": payload,
        },
    }


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its `$defs` references written out in place (a nested model such as a
    prompt's target), so each property stands on its own."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)


def _mark_personal(schema: dict[str, Any]) -> None:
    for name, prop in schema.get("properties", {}).items():
        if name in PERSONAL:
            prop["personal-data"] = True


def schema_path(kind: str) -> Path:
    return SCHEMAS / kind / f"v{VERSION}.json"


def write_schemas() -> None:
    """Write every kind's schema file (run after changing a payload class in `events.py`)."""
    for kind in RECORD_PAYLOADS:
        path = schema_path(kind)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(schema_of(kind), indent=2, sort_keys=True) + "\n")


def redact(schema_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A jupyter_events modifier: the personal fields' text replaced (structure kept)."""
    if data.get("actor") is not None:
        data["actor"] = REDACTED
    payload = data.get("payload", {})
    for name in PERSONAL & payload.keys():
        if isinstance(payload[name], str):
            payload[name] = REDACTED
        elif name in ("chips", "attachments") and isinstance(payload[name], list):
            payload[name] = [
                {k: REDACTED if k in ("path", "text", "data", "name") else v for k, v in c.items()}
                for c in payload[name]
            ]
    return data


class EventEmitter:
    """Registers the schemas on a server's event logger and emits each committed record."""

    def __init__(self, event_logger: EventLogger, *, redact_personal_data: bool = False):
        self.event_logger = event_logger
        for kind in RECORD_PAYLOADS:
            if schema_id(kind) not in event_logger.schemas:
                event_logger.register_event_schema(schema_path(kind))
            if redact_personal_data:
                event_logger.add_modifier(schema_id=schema_id(kind), modifier=redact)

    def listen_to(self, recorder: Recorder, room: str = "main") -> None:
        recorder.listen(lambda record: self.emit(record, room))

    def emit(self, record: Record, room: str = "main") -> None:
        """One committed record of `room` as an event; a logging failure never reaches it."""
        try:
            unset = {"source"} if record.source is None else set()
            data = {**record.model_dump(exclude=unset), "room": room}
            self.event_logger.emit(schema_id=schema_id(record.kind), data=data)
        except Exception:
            log.exception("Copilot room: could not emit record %s as a Jupyter Event", record.seq)


if __name__ == "__main__":
    write_schemas()
