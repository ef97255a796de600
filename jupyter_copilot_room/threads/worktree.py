"""A thread's files: a git worktree of the room's repository on a branch of its own
(`copilot-room/threads/<id>`), started from the repository as it is, the people's uncommitted and
untracked (not ignored) files included: they are snapshotted through an index of our own
(`GIT_INDEX_FILE`), so the people's branch, staging area and working tree are never touched. The
thread's changes are what its worktree holds against that start (`changes`), snapshotted the same
way; bringing them back applies that diff to the shared working tree (`apply`), refused whole,
naming the files, where the room changed the same places since.
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..checkpoints.checkpoint_git import COMMITTER, git_environment, run_git
from ..errors import Conflict

BRANCH = "copilot-room/threads/{}"


class NotARepository(Conflict):
    def __init__(self, folder: Path):
        super().__init__(
            f"{folder.name or folder} is not in a git repository, so a thread cannot have a "
            "worktree of its own: make it one (git init) to fork threads from this room.",
            code="not_a_repository",
        )


def _environment(index: Path | None) -> dict[str, str]:
    """The room's git environment (`git_environment`), the thread's commits by our committer."""
    name, email = COMMITTER
    env = git_environment() | {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email}
    return env | ({"GIT_INDEX_FILE": str(index)} if index is not None else {})


async def git(cwd: Path, *args: str, index: Path | None = None, stdin: bytes | None = None) -> str:
    code, out, err = await run_git(
        "git", "-C", str(cwd), *args, stdin=stdin, env=_environment(index)
    )
    if code != 0:
        raise GitError(err.decode(errors="replace").strip() or f"git {args[0]} failed")
    return out.decode(errors="replace")


class GitError(Exception):
    pass


async def toplevel(folder: Path) -> Path:
    try:
        return Path((await git(folder, "rev-parse", "--show-toplevel")).strip())
    except GitError:
        raise NotARepository(folder) from None


async def _tree(top: Path, scratch: Path) -> str:
    """The working tree at `top` as a git tree: tracked files as they are now, untracked ones
    not ignored; through an index in `scratch`."""
    index = scratch / "index"
    head = await _head(top)
    if head is not None:
        await git(top, "read-tree", head, index=index)
    await git(top, "add", "-A", "--ignore-errors", "--", ".", index=index)
    return (await git(top, "write-tree", index=index)).strip()


async def _head(top: Path) -> str | None:
    try:
        return (await git(top, "rev-parse", "-q", "--verify", "HEAD^{commit}")).strip()
    except GitError:
        return None  # a repository without a commit yet


@dataclass(frozen=True)
class Started:
    base: str  # the commit the thread's branch starts at
    folder: str  # the room's repository, relative to the worktree's top ("" for the top)


async def start(repository: Path, worktree: Path, thread_id: str) -> Started:
    """A worktree at `worktree` on the thread's branch, from the repository as it is now."""
    top = await toplevel(repository)
    with tempfile.TemporaryDirectory(prefix="copilot-thread-") as scratch:
        tree = await _tree(top, Path(scratch))
    head = await _head(top)
    parent = ["-p", head] if head else []
    base = (
        await git(
            top,
            "commit-tree",
            "--no-gpg-sign",
            tree,
            *parent,
            "-m",
            f"The repository as the thread {thread_id} found it",
        )
    ).strip()
    worktree.parent.mkdir(parents=True, exist_ok=True)
    await git(
        top, "worktree", "add", "--quiet", "-b", BRANCH.format(thread_id), str(worktree), base
    )
    folder = repository.resolve().relative_to(top.resolve()).as_posix()
    return Started(base, "" if folder == "." else folder)


async def changes(worktree: Path, base: str, folder: str = "") -> tuple[str, list[str]]:
    """The thread's changes against its start: a binary-safe diff and the files it touches,
    named from the worktree's top (what `apply` takes); with `folder` (the room's repository
    in it), for people: named from there, as cards name files, when every file is inside it
    (a change outside it is never hidden: then all stay named from the top)."""
    with tempfile.TemporaryDirectory(prefix="copilot-thread-") as scratch:
        index = Path(scratch) / "index"
        await git(worktree, "read-tree", base, index=index)
        await git(worktree, "add", "-A", "--ignore-errors", "--", ".", index=index)
        tree = (await git(worktree, "write-tree", index=index)).strip()
    names = await git(worktree, "diff", "--name-only", "-z", "--no-renames", base, tree)
    files = [name for name in names.split("\0") if name]
    prefix = f"{folder}/" if folder else ""
    inside = bool(prefix) and all(name.startswith(prefix) for name in files)
    relative = [f"--relative={folder}"] if inside else []
    diff = await git(worktree, "diff", "--binary", "--no-renames", *relative, base, tree)
    return diff, [name.removeprefix(prefix) for name in files] if inside else files


async def conflicts(top: Path, diff: str, files: list[str]) -> list[str]:
    """The files whose part of `diff` does not apply to the shared working tree (whose top
    level is `top`) now."""
    if not diff:
        return []
    try:
        await git(top, "apply", "--check", "-", stdin=diff.encode())
        return []
    except GitError:
        pass
    refused = []
    for name in files:
        try:
            await git(top, "apply", "--check", f"--include={name}", "-", stdin=diff.encode())
        except GitError:
            refused.append(name)
    return refused or list(files)


async def apply(top: Path, diff: str) -> None:
    """Write the thread's changes into the shared working tree at `top` (whole, or nothing)."""
    await git(top, "apply", "-", stdin=diff.encode())


async def remove(repository: Path, worktree: Path, thread_id: str) -> None:
    """The worktree and its branch go; what they held stays in the thread's transcript."""
    top = await toplevel(repository)
    if worktree.exists():
        await git(top, "worktree", "remove", "--force", str(worktree))
    await git(top, "worktree", "prune")
    with contextlib.suppress(GitError):  # gone already
        await git(top, "branch", "-D", BRANCH.format(thread_id))
