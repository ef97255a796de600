"""A checkpoint holds the agent's share of a turn's notebook changes: outputs a person's run (or
the `%%copilot` cell streaming the turn) wrote meanwhile are not the turn's to show or revert.
Checkpoints on a real git repository, the notebooks written as Jupyter saves them."""

import subprocess

import nbformat

from jupyter_copilot_room.checkpoints.turn_checkpoints import Author, Checkpoints
from jupyter_copilot_room.notebooks.open_notebooks import as_saved
from jupyter_copilot_room.notebooks.tools import METADATA_KEY
from jupyter_copilot_room.notebooks.turn_share import agents_share

ALICE = Author("alice", "Alice")


def notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def code(cell_id: str, source: str, printed: str | None = None, count: int | None = None):
    cell = nbformat.v4.new_code_cell(source, id=cell_id, execution_count=count)
    if printed is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    return cell


def save(path, nb) -> None:
    path.write_bytes(as_saved(nb))


def cells(data: bytes) -> dict:
    nb = nbformat.reads(data.decode(), as_version=4)
    return {c.id: (c.source, [o.get("text") for o in c.get("outputs", [])]) for c in nb.cells}


def setup(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work, Checkpoints(work, tmp_path / "state")


async def test_a_turn_whose_only_change_is_a_persons_output_has_no_checkpoint(tmp_path):
    work, checkpoints = setup(tmp_path)
    prompt = notebook(code("ask", "%%copilot\nfix stats.py"))
    save(work / "analysis.ipynb", prompt)
    checkpoints.turn_started("p1")
    await checkpoints.started("p1")
    # The agent's one edit was rejected; meanwhile the prompt's cell filled with the turn.
    prompt.cells[0] = code("ask", "%%copilot\nfix stats.py", "Asked. The agent ...", 1)
    save(work / "analysis.ipynb", prompt)
    assert await checkpoints.turn_ended("p1", ALICE, "fix stats.py") is None


async def test_a_checkpoint_shows_and_reverts_the_agents_run_and_keeps_a_persons(tmp_path):
    work, checkpoints = setup(tmp_path)
    agents, persons = code("a", "x = 1"), code("b", "print('people')")
    start = notebook(agents, nbformat.v4.new_markdown_cell("Notes", id="m"), persons)
    save(work / "nb.ipynb", start)
    checkpoints.turn_started("p1")
    await checkpoints.started("p1")
    # The agent replaces and runs cell a; a person runs cell b meanwhile.
    ran = code("a", "x = 2\nprint(x)", "2\n", 1)
    ran.metadata[METADATA_KEY] = {"prompt_id": "p1", "ran": {"prompt_id": "p1"}}
    end = notebook(ran, start.cells[1], code("b", "print('people')", "people\n", 2))
    save(work / "nb.ipynb", end)

    checkpoint = await checkpoints.turn_ended("p1", ALICE, "set x to 2")
    assert checkpoint is not None and checkpoint.files == ("nb.ipynb",)
    shown = await checkpoints.git.run("show", f"{checkpoint.commit}:nb.ipynb")
    assert cells(shown.encode()) == {
        "a": ("x = 2\nprint(x)", ["2\n"]),  # the agent's run is the turn's
        "m": ("Notes", []),
        "b": ("print('people')", []),  # the person's is not
    }
    assert "people" not in await checkpoints.diff(checkpoint.commit)

    await checkpoints.revert(checkpoint.commit, ALICE)
    assert cells((work / "nb.ipynb").read_bytes()) == {
        "a": ("x = 1", []),
        "m": ("Notes", []),
        "b": ("print('people')", ["people\n"]),  # the person's run survives the revert
    }


async def test_a_persons_new_cell_and_kernel_are_not_the_turns_but_a_notebook_it_wrote_is(
    tmp_path,
):
    """Shift+Enter on the last cell adds an empty one, and starting a kernel writes its
    `language_info`: neither is the turn's. A notebook the agent wrote itself is its own whole."""
    work, checkpoints = setup(tmp_path)
    start = notebook(code("a", "x = 1"), code("b", "print('people')"))
    save(work / "nb.ipynb", start)
    save(work / "raw.ipynb", start)
    checkpoints.turn_started("p1")
    await checkpoints.started("p1")
    inserted = code("c", "y = 2")
    inserted.metadata[METADATA_KEY] = {"prompt_id": "p1"}
    edited = code("b", "print('people', 2)")  # a person's edit during the turn
    end = notebook(start.cells[0], edited, inserted, code("empty", ""))
    end.metadata["language_info"] = {"name": "python"}
    save(work / "nb.ipynb", end)
    save(work / "raw.ipynb", notebook(code("a", "x = 3"), start.cells[1]))

    checkpoint = await checkpoints.turn_ended("p1", ALICE, "add y", frozenset({"raw.ipynb"}))
    assert checkpoint is not None and checkpoint.files == ("nb.ipynb", "raw.ipynb")
    shown = (await checkpoints.git.run("show", f"{checkpoint.commit}:nb.ipynb")).encode()
    assert cells(shown) == {"a": ("x = 1", []), "b": ("print('people')", []), "c": ("y = 2", [])}
    assert "language_info" not in nbformat.reads(shown.decode(), as_version=4).metadata
    raw = (await checkpoints.git.run("show", f"{checkpoint.commit}:raw.ipynb")).encode()
    assert cells(raw)["a"] == ("x = 3", [])

    await checkpoints.revert(checkpoint.commit, ALICE)
    assert cells((work / "nb.ipynb").read_bytes()) == {
        "a": ("x = 1", []),
        "b": ("print('people', 2)", []),  # the person's edit and cell survive the revert
        "empty": ("", []),
    }


def test_a_notebook_not_written_by_jupyter_is_shown_whole():
    """Rewriting it as Jupyter would would change every line: its change stays as it is."""
    start = notebook(code("b", "print('people')"))
    end = notebook(code("b", "print('people')", "people\n", 1))
    before = nbformat.writes(start, indent=2).encode()
    after = nbformat.writes(end, indent=2).encode()
    assert agents_share(before, after, "p1") == after
    assert agents_share(as_saved(start), as_saved(end), "p1") == as_saved(start)
