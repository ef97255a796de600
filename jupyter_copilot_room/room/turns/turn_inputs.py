"""What a turn is given and what it leaves: the text, context and attachments the agent is sent
when the turn starts, and the checkpoint of the files it changed when it ends.

Both read the room as it is at that moment (the catalog afresh for a `/skill` or `@agent`, the
notebooks' live documents for context chips, the attachments' store), and whatever no longer
exists is said in the room as a `system` line and to the model: nothing is dropped silently.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ...agent.seam import AgentTurn
from ...attachments import AttachmentStore
from ...catalog import Catalog
from ...checkpoints.turn_checkpoints import Author, Checkpoints
from ...events import SystemNote, TurnCheckpointed, bidi_noted
from ...notebooks import NotebookEditor, context
from ..live.document import RoomDocument
from ..persistence.recorder import Recorder
from .queue import QueuedPrompt

log = logging.getLogger(__name__)


@dataclass
class TurnInputs:
    recorder: Recorder
    document: RoomDocument
    catalog: Catalog | None
    notebooks: NotebookEditor | None
    attachments: AttachmentStore
    checkpoints: Checkpoints | None

    async def turn(self, prompt: QueuedPrompt) -> AgentTurn:
        """The turn the agent is sent: the prompt expanded, its chips and attachments read."""
        text = self._expand(prompt)
        chips = await context.expand(list(prompt.chips), self.notebooks, self.attachments)
        for sentence in chips.missing:  # said in the room too: nothing is dropped silently
            self.recorder.commit("system", None, SystemNote(text=f"Context chip: {sentence}"))
        images, files, gone = self.attachments.for_turn(prompt.attachments, self.notebooks)
        for sentence in gone:
            self.recorder.commit("system", None, SystemNote(text=f"Attachment: {sentence}"))
        return AgentTurn(
            prompt.id,
            prompt.author,
            bidi_noted(f"{text}\n\n{chips.text}" if chips.text else text),
            prompt.target,
            author_name=self.document.display_name(prompt.author),
            images=(*images, *chips.images),
            files=tuple(files),
        )

    def _expand(self, prompt: QueuedPrompt) -> str:
        """A targeted prompt is expanded from the catalog as it is now, when its turn starts."""
        if prompt.target is None or self.catalog is None:
            return prompt.text
        return self.catalog.refresh().expand(prompt.target.kind, prompt.target.name, prompt.text)

    async def checkpoint(
        self, prompt: QueuedPrompt, wrote: frozenset[str], ran_code: bool = False
    ) -> None:
        """Record what the turn changed (if anything) as a checkpoint; `wrote`: the files the
        agent wrote itself; `ran_code`: whether it ran a shell command or a cell."""
        assert self.checkpoints is not None
        deleted = self.notebooks.deletions.take(prompt.id) if self.notebooks else frozenset()
        try:
            author = Author(prompt.author, self.document.display_name(prompt.author))
            made = await self.checkpoints.turn_ended(
                prompt.id, author, prompt.text, wrote, deleted, ran_code
            )
            if made is not None:
                self.recorder.commit(
                    "turn.checkpointed",
                    None,
                    TurnCheckpointed(
                        prompt_id=prompt.id,
                        author=prompt.author,
                        commit=made.commit,
                        files=list(made.files),
                        unnamed=list(made.unnamed) or None,
                    ),
                )
        except Exception:
            log.exception("The checkpoint of prompt %s could not be recorded", prompt.id)
