"""Checkpoints: each turn that changed files becomes a git commit people can diff and revert.

The worktree is snapshotted (every tracked and untracked, not ignored file: `git add -A` into an
index of our own, `GIT_INDEX_FILE` in `state_dir`, then `write-tree`) when a turn starts and when
it ends. Comparing the two trees finds every change, whichever tool made it (a write tool, a
notebook edit saved to disk, a shell command), which the agent's tool events could not promise.
A turn that changed something gets two commits on `refs/copilot-room/checkpoints`: a "before"
commit (the start tree, its parent the previous checkpoint) and the checkpoint (the end tree,
its parent that "before"), so `git show <checkpoint>` is exactly the turn's diff. Only plumbing
and our own index are used (`checkpoint_git.py` runs git that way): the people's branch, staging
area and working tree are never touched. A folder that is not a repository gets a git directory
in `state_dir`.

A revert applies the turn's diff in reverse, three-way, to a snapshot of the worktree as it is
now (`git apply --cached -R --3way` on a temporary index): if a later turn or a person changed
the same lines it conflicts and nothing changes; else the files that differ are written back
(`checkout-index` from the temporary index, deletions unlinked) and recorded as a new checkpoint.

A notebook open in JupyterLab is read from its live document (`notebooks/open_notebooks.py`), as
Jupyter would save it, when that differs from its file (unsaved edits; autosave off), and a revert
puts it back through the live document, so everyone in it sees the change and the collaboration
layer saves it. The open notebooks are checked, without yielding, to be still as the revert read
them right before it writes anything; if someone typed meanwhile, the revert starts again.

A turn's start snapshot runs beside `Agent.send` (`turn_started` starts it, `started` waits for
it): the agent changes nothing before a permission request is answered, and the room answers
none before the snapshot is in (`RoomAgentHost.request_permission`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import glob
import logging
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import Conflict, InvalidRequest, NotFound
from ..notebooks.open_notebooks import LiveNotebook, LiveNotebooks, same_notebook
from .checkpoint_git import CheckpointGit, GitFailed
from .checkpoint_notebooks import agents_share, cells_put_back, notebooks, readable_diff
from .file_share import agents_files

log = logging.getLogger(__name__)

REF = "refs/copilot-room/checkpoints"
TRAILER = "Copilot-Room-Turn"
AUTHOR_TRAILER = "Copilot-Room-Author"
_COMMIT = re.compile(r"[0-9a-f]{40}")
#: How often a revert starts again because someone typed in an open notebook while it ran.
REVERT_ATTEMPTS = 3


#: What a subject may not hold: line breaks of any kind and other control characters (the
#: message's paragraphs are ours; a person's text never adds one).
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def message(subject: str, prompt_id: str, username: str) -> str:
    """A checkpoint's commit message: the prompt's first line, then the turn and its author as
    the last paragraph, git's trailer block, the only place `find` reads them."""
    lines = subject.strip().splitlines()
    first = _UNPRINTABLE.sub(" ", lines[0]).strip()[:200] if lines else ""
    return f"{first or '(no text)'}\n\n{TRAILER}: {prompt_id}\n{AUTHOR_TRAILER}: {username}\n"


def trailers(commit_object: str) -> dict[str, str] | None:
    """Our trailers of a commit (`cat-file commit` output), from its trailer block only: the last
    paragraph of a message that has a subject before it, as git parses trailers, each of ours
    exactly once. Whatever the subject says (a prompt's text) is never read; None if not ours."""
    _, _, body = commit_object.partition("\n\n")
    paragraphs = [p for p in body.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return None  # the first paragraph is the subject, never trailers
    found: dict[str, list[str]] = {}
    for line in paragraphs[-1].splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            found.setdefault(key, []).append(value.strip())
    values = {key: found.get(key, []) for key in (TRAILER, AUTHOR_TRAILER)}
    if any(len(v) != 1 or not v[0] for v in values.values()):
        return None
    return {key: v[0] for key, v in values.items()}


@dataclass(frozen=True)
class Checkpoint:
    commit: str
    files: tuple[str, ...]  # named as the room names them: from its folder
    #: Of `files`, those the agent did not name: changed while its shell (or a cell) ran.
    unnamed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Author:
    username: str
    name: str

    @property
    def email(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "-", self.username) or "someone"
        return f"{safe}@users.noreply.copilot-room"


class Checkpoints:
    def __init__(self, root: Path, state_dir: Path, live: LiveNotebooks | None = None):
        self.git = CheckpointGit(root, state_dir / "checkpoints")
        self.live = live
        self._lock = asyncio.Lock()
        self._before: dict[str, str] = {}  # prompt id -> the worktree's tree when it started
        self._starting: dict[str, asyncio.Task] = {}  # prompt id -> its start snapshot
        #: The open notebooks the last snapshot read (path in the work tree -> it, its bytes).
        self._open: dict[str, tuple[LiveNotebook, bytes]] = {}
        #: The files people saved through Jupyter's contents API during the turn (work tree).
        self._saved: set[str] = set()

    # -- snapshots and commits ------------------------------------------------------------------

    async def _snapshot(self) -> str:
        """The worktree as a tree: tracked files and untracked ones that are not ignored, open
        notebooks as their live documents hold them."""
        await self.git.run("add", "-A", "--ignore-errors", "--", self.git.pathspec)
        await self._read_open_notebooks()
        return (await self.git.run("write-tree")).strip()

    async def _read_open_notebooks(self) -> None:
        """Stage each open notebook the index holds (not ignored) as its live document would
        be saved, where that differs from its file; note what each was read as."""
        self._open = {}
        if self.live is None:
            return
        found = {}
        folder = self.git.work_tree / self.git.scope
        for notebook in await self.live.open():
            file = notebook.file.resolve()
            if file.is_relative_to(folder):  # not another folder's (another room's)
                found[file.relative_to(self.git.work_tree).as_posix()] = notebook
        if not found:
            return
        staged = await self.git.run("--literal-pathspecs", "ls-files", "-s", "-z", "--", *found)
        lines = []
        for entry in filter(None, staged.split("\0")):
            info, path = entry.split("\t", 1)
            notebook = found[path]
            saved = notebook.saved()
            self._open[path] = (notebook, saved)
            try:
                on_disk = (self.git.work_tree / path).read_bytes()
            except OSError:
                continue
            if on_disk == saved or await asyncio.to_thread(same_notebook, on_disk, saved):
                continue  # what is open is what is on disk
            blob = await self.git.run(
                "hash-object", "-w", "--stdin", f"--path={path}", stdin=saved
            )  # the repository's filters (e.g. nbstripout) apply as to the file
            lines.append(f"{info.split()[0]} {blob.strip()}\t{path}")
        if lines:
            await self.git.run("update-index", "--index-info", stdin="\n".join(lines).encode())

    async def _tip(self) -> str | None:
        try:
            return (await self.git.run("rev-parse", "-q", "--verify", f"{REF}^{{commit}}")).strip()
        except GitFailed:
            return None

    async def _changed(self, a: str, b: str) -> tuple[str, ...]:
        """The work tree's paths that differ in the room's folder (a checkpoint made before
        the room kept to its folder may hold others: they are not the room's to show or undo)."""
        out = await self.git.run(
            "diff-tree", "-r", "-z", "--name-only", "--no-renames", a, b, "--", self.git.pathspec
        )
        return tuple(name for name in out.split("\0") if name)

    async def _record(
        self, before: str, after: str, author: Author, message: str
    ) -> Checkpoint | None:
        """Commit before -> after on the ref (a compare-and-swap); None if nothing changed."""
        files = await self._changed(before, after)
        if not files:
            return None
        env = {"GIT_AUTHOR_NAME": author.name or author.username, "GIT_AUTHOR_EMAIL": author.email}
        tip = await self._tip()
        parent = ["-p", tip] if tip else []
        subject = message.splitlines()[0] if message.strip() else "(no text)"
        start = await self.git.run(
            "commit-tree", "--no-gpg-sign", before, *parent, "-m", f"Before: {subject}", env=env
        )
        commit = await self.git.run(
            "commit-tree", "--no-gpg-sign", after, "-p", start.strip(), "-m", message, env=env
        )
        await self.git.run("update-ref", REF, commit.strip(), tip or "0" * 40)
        return Checkpoint(commit.strip(), tuple(self.git.shown(path) for path in files))

    # -- turns -----------------------------------------------------------------------------------

    def turn_started(self, prompt_id: str) -> None:
        """Snapshot the worktree as the turn finds it, beside the agent getting the prompt."""
        self._starting[prompt_id] = asyncio.create_task(self._start(prompt_id))

    def person_saved(self, path: Path) -> None:
        """Someone saved `path` through Jupyter's contents API: during a turn, it is theirs."""
        if not (self._starting or self._before):
            return
        with contextlib.suppress(ValueError):  # not in this room's work tree
            self._saved.add(path.resolve().relative_to(self.git.work_tree).as_posix())

    async def _start(self, prompt_id: str) -> None:
        self._saved.clear()
        async with self._lock:
            try:
                self._before[prompt_id] = await self._snapshot()
            except Exception:  # only the turn's checkpoint is lost
                log.exception(
                    "No checkpoint for prompt %s: the worktree could not be read", prompt_id
                )

    async def started(self, prompt_id: str) -> None:
        """Once the worktree as the turn found it is in (at once for a turn without one)."""
        task = self._starting.get(prompt_id)
        if task is not None:
            await asyncio.shield(task)

    async def stop(self) -> None:
        """The server stops: a start snapshot under way ends first (no git process outlives the
        server's event loop)."""
        for task in list(self._starting.values()):
            with contextlib.suppress(Exception):
                await task

    async def turn_ended(
        self,
        prompt_id: str,
        author: Author,
        text: str,
        wrote: frozenset[str] = frozenset(),
        deleted: frozenset[str] = frozenset(),
        ran_code: bool = True,
    ) -> Checkpoint | None:
        """The turn's checkpoint (None if it changed nothing); `wrote`: files the agent wrote
        itself, whose change is its own whole; `deleted`: the ids of the notebook cells the
        agent deleted (any other cell gone was a person's doing); `ran_code`: whether it ran a
        shell command or a cell, after which a file it did not name may be its change
        (`file_share.py`; the room always says, a caller that cannot tell keeps every change)."""
        await self.started(prompt_id)
        self._starting.pop(prompt_id, None)
        async with self._lock:
            before = self._before.pop(prompt_id, None)
            if before is None:
                return None
            after = await self._snapshot()
            changed = await self._changed(before, after)
            wrote = frozenset(self.git.in_tree(path) for path in wrote)
            after = await agents_share(self.git, before, after, changed, prompt_id, wrote, deleted)
            saved, self._saved = frozenset(self._saved), set()
            after, unnamed = await agents_files(
                self.git, before, after, changed, wrote, saved, ran_code
            )
            made = await self._record(
                before, after, author, message(text, prompt_id, author.username)
            )
            if made is None:
                return None
            return dataclasses.replace(made, unnamed=tuple(self.git.shown(p) for p in unnamed))

    # -- diff and revert -------------------------------------------------------------------------

    async def find(self, commit: str) -> tuple[str, str]:
        """The turn a checkpoint recorded and its author; 404 for anything not one of ours."""
        if not _COMMIT.fullmatch(commit):
            raise InvalidRequest("A checkpoint is named by its full commit hash (40 hex digits).")
        tip = await self._tip()
        try:
            if tip is None:
                raise GitFailed("no checkpoints")
            await self.git.run("merge-base", "--is-ancestor", commit, tip)
            found = trailers(await self.git.run("cat-file", "commit", commit))
        except GitFailed:
            found = None
        if found is None:
            raise NotFound(f"There is no checkpoint {commit}.", code="no_checkpoint")
        return found[TRAILER], found[AUTHOR_TRAILER]

    async def diff(self, commit: str) -> str:
        """What the turn changed, as people read it (notebooks cell by cell)."""
        await self.find(commit)
        files = await self._changed(f"{commit}^", commit)
        return await readable_diff(self.git, f"{commit}^", commit, files)

    async def revert(
        self, commit: str, author: Author, force: bool = False
    ) -> tuple[str, Checkpoint]:
        """Put the checkpoint's files back as they were before its turn, or change nothing;
        the turn's prompt id and the revert's own checkpoint."""
        prompt_id, _ = await self.find(commit)
        subject = (await self.git.run("log", "-1", "--format=%s", commit)).strip()
        note = message(f'Revert "{subject}"', prompt_id, author.username)
        async with self._lock:
            patch = await self.git.run(
                "diff", "--binary", "--full-index", f"{commit}^", commit, "--", self.git.pathspec
            )
            files = await self._changed(f"{commit}^", commit)
            for _ in range(REVERT_ATTEMPTS):
                now = await self._snapshot()
                if await self._put_back(now, commit, patch, files, force):
                    break
            else:
                raise Conflict(
                    "Someone kept typing in a notebook this turn changed while it was being "
                    "reverted, so nothing was changed; try again.",
                    code="revert_busy",
                )
            after = await self._snapshot()
            made = await self._record(now, after, author, note)
            if made is None:
                raise Conflict(
                    "The files are already as they were before this turn.",
                    code="nothing_to_revert",
                )
            return prompt_id, made

    async def _put_back(
        self, now: str, commit: str, patch: str, files: tuple[str, ...], force: bool
    ) -> bool:
        """Undo the turn in `now`, the worktree just read: its notebooks cell by cell
        (`checkpoints/cell_revert.py`), the rest by applying its diff reversed; open notebooks
        through their live documents, other files on disk. False (nothing written) if an open
        notebook it changes is no longer as read; a conflict raises and writes nothing."""
        scratch = self.git.dir / "revert.index"
        shutil.copyfile(self.git.index, scratch)
        try:
            await self.git.run("read-tree", now, index=scratch)
            by_cell = await cells_put_back(self.git, now, commit, notebooks(files), force)
            excluded = [f"--exclude={glob.escape(path)}" for path in by_cell]
            try:
                if len(by_cell) < len(files):
                    await self.git.run(
                        "apply",
                        "--cached",
                        "-R",
                        "--3way",
                        *excluded,
                        index=scratch,
                        stdin=patch.encode(),
                    )
                if by_cell:
                    info = "\n".join(by_cell.values()).encode()
                    await self.git.run("update-index", "--index-info", index=scratch, stdin=info)
            except GitFailed:
                raise Conflict(
                    "This turn cannot be reverted: these files changed since in the same "
                    f"places: {', '.join(await self._conflicts(scratch))}. Nothing was "
                    "changed.",
                    code="revert_conflict",
                ) from None
            result = (await self.git.run("write-tree", index=scratch)).strip()
            changed = await self._changed(now, result)
            present = set(
                (await self.git.run("ls-tree", "-r", "-z", "--name-only", result)).split("\0")
            )
            live = {}
            for path in changed:
                if path in present and path in self._open:
                    blob = await self.git.run("cat-file", "blob", f"{result}:{path}")
                    live[path] = (*self._open[path], blob.encode(errors="surrogateescape"))
            # From the check to the last live edit nothing yields: nobody can type in between.
            if any(notebook.saved() != read for notebook, read, _ in live.values()):
                return False
            applied = {path for path, (notebook, _, data) in live.items() if notebook.apply(data)}
            written = [path for path in changed if path in present and path not in applied]
            if written:
                await self.git.run(
                    "checkout-index",
                    "-f",
                    "-z",
                    "--stdin",
                    index=scratch,
                    stdin="\0".join(written).encode(),
                )
            for path in changed:
                if path not in present:
                    (self.git.work_tree / path).unlink(missing_ok=True)
            return True
        finally:
            scratch.unlink(missing_ok=True)

    async def _conflicts(self, index: Path) -> list[str]:
        """The files `apply --3way` left unmerged in the scratch index."""
        out = await self.git.run("ls-files", "-u", "-z", index=index)
        names = {line.split("\t", 1)[1] for line in out.split("\0") if "\t" in line}
        return sorted(names) or ["(the turn's files)"]
