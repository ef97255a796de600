"""A notebook change reads cell by cell: which cell, added, removed or changed, its source lines
marked, its outputs summed up; never the `.ipynb` file's JSON lines. On a real git repository
for checkpoints, beside a plain file that keeps git's own diff."""

import json
import subprocess

import nbformat
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.checkpoints.turn_checkpoints import Author, Checkpoints
from jupyter_copilot_room.notebooks.notebook_diff import notebook_diff
from jupyter_copilot_room.notebooks.open_notebooks import as_saved
from jupyter_copilot_room.notebooks.tools import METADATA_KEY

JSON_KEYS = ('"cell_type"', '"source"', '"outputs"', '"metadata"', '"execution_count"')


def notebook(*cells, ids: bool = True) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [dict(cell) for cell in cells]
    if not ids:
        nb.nbformat_minor = 4
        for cell in nb.cells:
            cell.pop("id", None)
    return json.dumps(nb)


def code(cell_id: str, source: str, printed: str | None = None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, id=cell_id)
    if printed is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
        cell.execution_count = 1
    return cell


def markdown(cell_id: str, source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(source, id=cell_id)


def test_each_changed_cell_is_named_with_its_source_lines_marked():
    before = notebook(markdown("t", "# Sales"), code("a", "import pandas as pd\nx = 1\nx"))
    after = notebook(
        markdown("t", "# Sales"),
        code("a", "import pandas as pd\nx = 2\nx", printed="2\n"),
        code("n", "x * 3"),
    )
    assert notebook_diff(before, after) == (
        "@@ cell 2 (code): changed @@\n"
        " import pandas as pd\n"
        "-x = 1\n"
        "+x = 2\n"
        " x\n"
        "\\ outputs: none -> 1 stream\n"
        "@@ cell 3 (code): added @@\n"
        "+x * 3\n"
    )


def test_cells_are_the_same_cell_by_id_so_a_replaced_cell_is_a_removal_and_an_addition():
    """Cell 2 and the new cell 2 share nothing but their place: the revert works by id too."""
    before = notebook(code("a", "x = 1"), code("b", "y = 2"))
    after = notebook(code("a", "x = 1"), code("c", "y = 3"))
    assert notebook_diff(before, after) == (
        "@@ cell 2 (code): removed @@\n-y = 2\n@@ cell 2 (code): added @@\n+y = 3\n"
    )


def test_cells_without_ids_are_paired_by_content_with_nbdime():
    before = notebook(code("a", "x = 1"), code("b", "total = sum(values)\nprint(total)"), ids=False)
    after = notebook(
        code("z", "values = [1, 2]"),
        code("a", "x = 1"),
        code("b", "total = sum(values)\nprint(total, 'items')"),
        ids=False,
    )
    assert notebook_diff(before, after) == (
        "@@ cell 1 (code): added @@\n"
        "+values = [1, 2]\n"
        "@@ cell 3 (code): changed @@\n"
        " total = sum(values)\n"
        "-print(total)\n"
        "+print(total, 'items')\n"
    )


def test_a_long_cell_shows_its_change_with_three_lines_around_it():
    lines = [f"step_{k}()" for k in range(20)]
    changed = [*lines[:10], "step_ten()", *lines[11:]]
    diff = notebook_diff(
        notebook(code("a", "\n".join(lines))), notebook(code("a", "\n".join(changed)))
    )
    assert (
        diff
        == "@@ cell 1 (code): changed @@\n\\ ...\n"
        + "".join(f" step_{k}()\n" for k in (7, 8, 9))
        + "-step_10()\n+step_ten()\n"
        + "".join(f" step_{k}()\n" for k in (11, 12, 13))
        + "\\ ...\n"
    )


def test_the_rooms_own_marks_are_not_a_change_but_other_metadata_is():
    marked = code("a", "x = 1")
    marked.metadata[METADATA_KEY] = {"prompt_id": "p1"}
    tagged = code("b", "y = 1")
    tagged.metadata["tags"] = ["parameters"]
    before = notebook(code("a", "x = 1"), code("b", "y = 1"))
    assert notebook_diff(before, notebook(marked, code("b", "y = 1"))) == "\\ no cell changed\n"
    assert notebook_diff(before, notebook(code("a", "x = 1"), tagged)) == (
        "@@ cell 2 (code): changed @@\n y = 1\n\\ metadata changed: tags\n"
    )


def test_a_new_or_deleted_notebook_is_all_its_cells():
    nb = notebook(markdown("t", "# Plan"), code("a", "run()", printed="ok\n"))
    assert notebook_diff(None, nb) == (
        "@@ cell 1 (markdown): added @@\n+# Plan\n"
        "@@ cell 2 (code): added @@\n+run()\n\\ outputs: 1 stream\n"
    )
    assert notebook_diff(nb, None) == (
        "@@ cell 1 (markdown): removed @@\n-# Plan\n"
        "@@ cell 2 (code): removed @@\n-run()\n\\ outputs: 1 stream\n"
    )


def test_a_file_that_is_not_a_notebook_gets_no_cell_diff():
    assert notebook_diff("{not json", notebook(code("a", "x"))) is None
    assert notebook_diff(json.dumps({"cells": "none"}), None) is None


sources = st.lists(st.text("ab\n", max_size=6), max_size=5)


@given(sources, sources, st.lists(st.booleans(), max_size=5))
def test_every_added_and_removed_cell_is_shown_whole_and_no_json_key_ever(old, new, keep):
    """Cells kept (by id) may change; each other old cell is removed, each new one added."""
    before = [code(f"o{k}", source) for k, source in enumerate(old)]
    kept = [cell for cell, stays in zip(before, keep, strict=False) if stays]
    after = [code(c.id, c.source + "\nmore") for c in kept] + [
        code(f"n{k}", source) for k, source in enumerate(new)
    ]
    diff = notebook_diff(notebook(*before), notebook(*after))
    assert diff is not None and not any(key in diff for key in JSON_KEYS)
    heads = [line for line in diff.splitlines() if line.startswith("@@ ")]
    assert sum("added" in head for head in heads) == len(new)
    assert sum("removed" in head for head in heads) == len(before) - len(kept)
    assert sum("changed" in head for head in heads) == len(kept)
    for cell in after[len(kept) :]:
        assert "".join(f"+{line}\n" for line in cell.source.splitlines()) in diff


async def test_a_checkpoint_diff_shows_notebooks_by_cell_and_plain_files_as_git_does(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    checkpoints = Checkpoints(work, tmp_path / "state")
    (work / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs) + 1\n")
    start = nbformat.from_dict(json.loads(notebook(code("a", "mean([1, 2])"))))
    (work / "analysis.ipynb").write_bytes(as_saved(start))
    (work / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x01")
    checkpoints.turn_started("p1")
    await checkpoints.started("p1")

    (work / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    added = code("b", "mean([])")
    added.metadata[METADATA_KEY] = {"prompt_id": "p1"}  # the agent's insert
    end = nbformat.from_dict(json.loads(notebook(code("a", "mean([1, 2])"), added)))
    (work / "analysis.ipynb").write_bytes(as_saved(end))
    (work / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x02")
    (work / "new.ipynb").write_bytes(as_saved(start))
    checkpoint = await checkpoints.turn_ended("p1", Author("alice", "Alice"), "fix mean")
    assert checkpoint is not None

    diff = await checkpoints.diff(checkpoint.commit)
    assert "-    return sum(xs) / len(xs) + 1\n+    return sum(xs) / len(xs)\n" in diff
    assert "Binary files a/logo.png and b/logo.png differ" in diff
    assert (
        "diff --git a/analysis.ipynb b/analysis.ipynb\n--- a/analysis.ipynb\n+++ b/analysis.ipynb\n"
        "@@ cell 2 (code): added @@\n+mean([])\n"
    ) in diff
    assert "--- /dev/null\n+++ b/new.ipynb\n@@ cell 1 (code): added @@\n+mean([1, 2])\n" in diff
    assert not any(key in diff for key in JSON_KEYS)
