"""Checkpoints' notebook rules, on git trees: what of a turn's notebook change was the agent's
(`notebooks/turn_share.py`), a revert cell by cell (`checkpoints/cell_revert.py`) and a diff that
shows notebooks cell by cell (`notebooks/notebook_diff.py`)."""

from __future__ import annotations

import asyncio

from ..errors import Conflict
from ..notebooks.notebook_diff import file_header, notebook_diff
from ..notebooks.turn_share import agents_share as share_of_agent
from .cell_revert import EditedSince, revert_cells
from .checkpoint_git import CheckpointGit, GitFailed


async def agents_share(
    git: CheckpointGit,
    before: str,
    after: str,
    changed: tuple[str, ...],
    prompt_id: str,
    wrote: frozenset[str],
    deleted: frozenset[str] = frozenset(),
) -> str:
    """`after` with each notebook the turn changed (of the `changed` paths) holding only the
    agent's share of the change: people's runs, cells and deletions are not the turn's (the
    agent deleted the cells in `deleted`). A notebook the agent wrote itself (in `wrote`) is its
    change whole."""
    lines = []
    for path in notebooks(changed):
        if path in wrote:
            continue
        blobs = await _blobs(git, path, before, after)
        if blobs is None:
            continue  # added or deleted by the turn: the agent's either way
        old, new = blobs
        share = await asyncio.to_thread(share_of_agent, old, new, prompt_id, deleted)
        if share != new:
            lines.append(await _index_line(git, after, path, share))
    return await git.tree_with(after, lines, "share.index")


async def cells_put_back(
    git: CheckpointGit, now: str, commit: str, notebooks: list[str], force: bool = False
) -> dict[str, str]:
    """The index line of each notebook the turn changed, undone cell by cell in `now` (those
    it cannot be read off are left out, for the diff); 409 naming cells edited since."""
    lines = {}
    for path in notebooks:
        blobs = await _blobs(git, path, f"{commit}^", commit, now)
        if blobs is None:
            continue  # added, deleted or gone since: the diff says what it can
        try:
            before, after, current = blobs
            data = await asyncio.to_thread(revert_cells, before, after, current, force)
        except EditedSince as since:
            raise Conflict(
                f"This turn cannot be reverted: in {path}, someone changed these cells since: "
                f"{', '.join(since.cells)}. Nothing was changed.",
                code="revert_conflict",
            ) from None
        if data is not None:
            lines[path] = await _index_line(git, now, path, data)
    return lines


async def readable_diff(git: CheckpointGit, before: str, after: str, files: tuple[str, ...]) -> str:
    """What changed from `before` to `after` in `files`, for people: git's unified diff for
    plain files (a binary one named, not spelled out), notebooks cell by cell."""
    shown = notebooks(files)
    plain = [path for path in files if path not in shown]
    parts = [await _plain_diff(git, before, after, plain)] if plain else []
    for path in shown:
        texts = [await _text(git, path, tree) for tree in (before, after)]
        cells = await asyncio.to_thread(notebook_diff, *texts)
        if cells is None:  # not a notebook after all: as a plain file
            parts.append(await _plain_diff(git, before, after, [path]))
        else:
            parts.append(file_header(git.shown(path), *texts) + cells)
    return "".join(parts)


async def _plain_diff(git: CheckpointGit, before: str, after: str, paths: list[str]) -> str:
    """git's unified diff of `paths`, named as the room names them (from its folder)."""
    relative = [] if git.scope == "." else [f"--relative={git.scope}"]
    literal = [f":(literal){path}" for path in paths]
    return await git.run("diff", "--no-color", *relative, before, after, "--", *literal)


def notebooks(paths: tuple[str, ...]) -> list[str]:
    return [path for path in paths if path.endswith(".ipynb")]


async def _blobs(git: CheckpointGit, path: str, *trees: str) -> list[bytes] | None:
    """The file's bytes in each tree; None if one lacks it."""
    try:
        return [
            (await git.run("cat-file", "blob", f"{tree}:{path}")).encode(errors="surrogateescape")
            for tree in trees
        ]
    except GitFailed:
        return None


async def _text(git: CheckpointGit, path: str, tree: str) -> str | None:
    """The file's text in `tree`; None if the tree lacks it."""
    blobs = await _blobs(git, path, tree)
    return None if blobs is None else blobs[0].decode(errors="replace")


async def _index_line(git: CheckpointGit, tree: str, path: str, data: bytes) -> str:
    """`data` stored as is (already cleaned, as the tree's blobs are) under `path`'s mode."""
    blob = (await git.run("hash-object", "-w", "--stdin", stdin=data)).strip()
    mode = (await git.run("ls-tree", tree, "--", path)).split()[0]
    return f"{mode} {blob}\t{path}"
