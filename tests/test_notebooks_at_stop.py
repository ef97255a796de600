"""A server that stops keeps each open notebook whole: its shared document's state in the
collaboration layer's update store and, when it has unsaved edits, in its file
(`notebooks/at_stop.py`). The restart itself, with browsers typing, is `browser/test_soak.py`."""

import logging

import nbformat
import pytest
from pycrdt import Doc, create_awareness_message

from jupyter_copilot_room.notebooks.at_stop import hold, keep

from .harness import config
from .harness.helpers import eventually
from .test_notebooks import join_notebook


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


async def test_an_open_notebook_with_unsaved_edits_is_kept_in_its_store_and_file(
    jp_fetch, jp_http_port, jp_base_url, jp_serverapp, jp_root_dir
):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("total = 1")]
    nbformat.write(notebook, jp_root_dir / "open.ipynb")
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "open.ipynb")
    # Autosave off, as a person may have it: only the stop can save what they typed.
    person.awareness.set_local_state({**person.awareness.get_local_state(), "autosave": False})
    update = person.awareness.encode_awareness_update([person.doc.client_id])
    person.ws.write_message(create_awareness_message(update), binary=True)
    await eventually(lambda: person.notebook.cell_number == 1, timeout=30, what="the sync")
    settings = jp_serverapp.web_app.settings
    live = await settings["jupyter_server_ydoc"].get_document(
        path="open.ipynb", content_type="notebook", file_format="json", copy=False
    )
    await eventually(
        lambda: [s.get("autosave") for s in live.awareness.states.values() if s] == [False],
        what="the server to hear that autosave is off",
    )
    source = person.notebook.ycells[0]["source"]
    source.insert(len(source), " + 1  # typed, never saved")
    await eventually(
        lambda: live.get()["cells"][0]["source"].endswith("never saved"), what="the edit"
    )

    held = hold(settings)
    assert [notebook.path for notebook in held] == ["open.ipynb"]
    await keep(settings, held, logging.getLogger("test"))

    on_disk = nbformat.read(jp_root_dir / "open.ipynb", as_version=4)
    assert [cell.source for cell in on_disk.cells] == ["total = 1 + 1  # typed, never saved"]
    stored = Doc()  # the document a restarted server rebuilds from the store
    await held[0].store.apply_updates(stored)
    assert stored.get_state() == live.ydoc.get_state()
