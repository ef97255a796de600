"""What a room's mirror in a channel has posted, kept in `<state_dir>/bridges/<service>/<room>.json`
(written atomically): how far into the transcript it is, and the channel's message of each
prompt, reply, card and tool line, so a restart or a reconnection posts what was missed and
nothing twice."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from ...statefiles import read_json, write_json_atomically


@dataclass
class MirrorState:
    file: Path
    seq: int = 0  # the last record mirrored
    prompts: dict[str, str] = field(default_factory=dict)  # prompt id -> its message
    replies: dict[str, str] = field(default_factory=dict)  # reply entry id -> its message
    cards: dict[str, str] = field(default_factory=dict)  # card id -> its message
    card_prompts: dict[str, str] = field(default_factory=dict)  # card id -> its prompt
    refused: list[str] = field(default_factory=list)  # prompts whose last card was refused
    done: list[str] = field(default_factory=list)  # records whose message is posted ("seq:part")
    fresh: bool = False  # no file yet: the channel was just linked

    @classmethod
    def load(cls, file: Path) -> MirrorState:
        data = read_json(file)
        if data is None:
            return cls(file=file, fresh=True)
        return cls(file=file, **data)

    def advance(self, seq: int) -> None:
        """Mirrored up to `seq`: what was posted of the records before it is forgotten."""
        self.seq = seq
        self.done = [key for key in self.done if int(key.split(":")[0]) > seq]
        self.save()

    def save(self) -> None:
        data = asdict(self)
        del data["file"], data["fresh"]
        write_json_atomically(self.file, data)
