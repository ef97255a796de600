"""Side threads: a room's conversation forked at a turn, tried out privately, brought back.

A thread is a room of its own (`Room`, built like every room by `app.py`) on a git worktree of
the room's repository, whose agent resumes a fork of the room's session (`Agent.fork`); its
admissions are the room's hosts, its owner and the people the owner added (`access.py`). The
threads of one room are `RoomThreads` (`threads.py`): their records (`records.py`), the fork
point (`fork_point.py`), the worktrees (`worktree.py`). The REST routes and the websocket are
`handlers/threads.py`.
"""

from .threads import RoomThreads, ThreadFactory, ThreadRegistry

__all__ = ["RoomThreads", "ThreadFactory", "ThreadRegistry"]
