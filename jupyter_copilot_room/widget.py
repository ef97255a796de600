"""`RoomWidget`: the live room in a notebook output.

The widget model syncs only view options (which parts, how tall); the browser's view connects to
the room itself, as the person reading the notebook, exactly like the sidebar panel. So a shared
notebook shows every reader the room with their own role, and nothing the kernel holds or sends
(no room state, no credentials) is in the output. The output also carries our own mime type with
the options and a plain-text fallback: a reopened notebook, whose widget model is gone with its
kernel, still shows the room live (labextension/src/widget/renderer.ts), and the .ipynb keeps
only those few options.
"""

from __future__ import annotations

from typing import Any

import ipywidgets
import traitlets

from . import __version__

# labextension/src/widget/options.ts takes these from the generated declarations
# (`panel_declarations.py`).
MODULE_NAME = "jupyter-copilot-room"
ROOM_MIME_TYPE = "application/vnd.copilot-room.room+json"
PARTS = ("transcript", "queue", "cards", "prompt")
MIN_HEIGHT, MAX_HEIGHT, DEFAULT_HEIGHT = 160, 4000, 480


class RoomWidget(ipywidgets.DOMWidget):
    """The shared Copilot room, live, in a cell's output.

    `parts`: what to show, some of "transcript", "queue", "cards", "prompt" (all by default); the
    header (the agent's state, whose turn it is, the connection) is always there. `height`: in
    pixels, when the transcript is shown (it scrolls inside). A viewer sees no prompt box, someone
    not yet admitted the door: the room decides, by who opens the notebook.
    """

    _model_name = traitlets.Unicode("RoomWidgetModel").tag(sync=True)
    _model_module = traitlets.Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = traitlets.Unicode(f"^{__version__}").tag(sync=True)
    _view_name = traitlets.Unicode("RoomWidgetView").tag(sync=True)
    _view_module = traitlets.Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = traitlets.Unicode(f"^{__version__}").tag(sync=True)

    parts = traitlets.Tuple(default_value=PARTS).tag(sync=True)
    height = traitlets.Int(DEFAULT_HEIGHT).tag(sync=True)

    def __init__(self, parts: Any = PARTS, height: int = DEFAULT_HEIGHT, **kwargs: Any) -> None:
        super().__init__(parts=parts, height=height, **kwargs)

    @traitlets.validate("parts")
    def _check_parts(self, proposal: dict[str, Any]) -> tuple[str, ...]:
        value = proposal["value"]
        if isinstance(value, str) or not all(isinstance(part, str) for part in value):
            raise traitlets.TraitError(f"parts must be names from {PARTS}, not {value!r}")
        unknown = [part for part in value if part not in PARTS]
        if unknown:
            raise traitlets.TraitError(f"unknown part(s) {unknown}: choose from {PARTS}")
        if not value:
            raise traitlets.TraitError(f"parts is empty: choose some of {PARTS}")
        return tuple(dict.fromkeys(value))

    @traitlets.validate("height")
    def _check_height(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        if not MIN_HEIGHT <= value <= MAX_HEIGHT:
            raise traitlets.TraitError(
                f"height must be between {MIN_HEIGHT} and {MAX_HEIGHT} pixels, not {value}"
            )
        return value

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        bundle[ROOM_MIME_TYPE] = {"parts": list(self.parts), "height": self.height}
        bundle["text/plain"] = (
            "Copilot room: shown live in JupyterLab or Notebook 7 with jupyter-copilot-room "
            f"({', '.join(self.parts)})"
        )
        return bundle
