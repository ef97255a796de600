"""`RoomWidget` in the kernel: what its output holds (view options and a text fallback, never
room state), bad options refused with a clear error, and a server that never imports ipywidgets."""

import re
import subprocess
import sys

import pytest
import traitlets

from jupyter_copilot_room import RoomWidget
from jupyter_copilot_room.widget import ROOM_MIME_TYPE


def test_the_output_holds_the_widget_view_our_options_and_a_text_fallback():
    widget = RoomWidget(parts=("transcript", "cards", "prompt"), height=360)
    bundle = widget._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
    assert bundle[ROOM_MIME_TYPE] == {"parts": ["transcript", "cards", "prompt"], "height": 360}
    assert bundle["text/plain"].startswith("Copilot room")
    widget.height = 500  # synced to the view; the next display saves it
    assert widget._repr_mimebundle_()[ROOM_MIME_TYPE]["height"] == 500
    widget.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"parts": ("transcript", "chat")}, "unknown part(s) ['chat']"),
        ({"parts": "transcript"}, "expected a tuple, not the str 'transcript'"),
        ({"parts": (1, 2)}, "parts must be names from"),
        ({"parts": ()}, "parts is empty"),
        ({"height": 20}, "height must be between 160 and 4000 pixels, not 20"),
    ],
)
def test_bad_options_are_refused_with_what_is_allowed(options, message):
    with pytest.raises(traitlets.TraitError, match=re.escape(message)):
        RoomWidget(**options)


def test_importing_the_package_does_not_import_ipywidgets():
    code = (
        "import sys, jupyter_copilot_room, jupyter_copilot_room.app; "
        "assert 'ipywidgets' not in sys.modules, 'ipywidgets was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
