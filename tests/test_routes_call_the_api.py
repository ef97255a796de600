"""Every REST route is a thin call into the in-process API (`jupyter_copilot_room.api`): each of
its methods calls one API method, one command a method, and decides nothing itself, so a bridge
that calls the API gets the answers REST gets."""

import ast
import inspect
import textwrap

from jupyter_copilot_room.api import RoomAPI, RoomLinksAPI, RoomsAPI, ThreadsAPI
from jupyter_copilot_room.handlers import people, routes
from jupyter_copilot_room.handlers.room_handler import RoomAPIHandler

from .harness.helpers import parsed

VERBS = ("get", "post", "put", "patch", "delete")
#: The API object each handler reaches, by how it names it.
OBJECTS = {
    "self.room": RoomAPI,
    "self.rooms": RoomsAPI,
    "self.room.threads": ThreadsAPI,
    "self.room.links": RoomLinksAPI,
}
#: What every answer awaits, not a command (`RoomAPIHandler.reply`).
NOT_A_COMMAND = {"RoomAPI.durable"}
#: The claim link is an HTML page, not a REST command: it redirects a browser signed in by the
#: link's token to the same page with its login cookie, and shows a refusal as a page.
PAGES = {people.ClaimHandler}
_API = {cls.__name__: cls for cls in OBJECTS.values()}
DECISIONS = (ast.If, ast.IfExp, ast.Compare, ast.BoolOp, ast.Match, ast.Try)


def api_calls(function) -> list[str]:
    """The API methods `function` calls (`self.room.X(...)`, `self.room.threads.X(...)`,
    `self.room.links.X(...)`, `self.rooms.X(...)`), as `Class.method`."""
    tree = parsed(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    called = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if (api := OBJECTS.get(ast.unparse(node.func.value))) is not None:
            called.append(f"{api.__name__}.{node.func.attr}")
    return called


def decisions(function) -> list[str]:
    tree = parsed(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    return [ast.unparse(node)[:60] for node in ast.walk(tree) if isinstance(node, DECISIONS)]


def rest_methods():
    """Every (route, handler, verb) the route table serves over REST."""
    for path, handler in [*routes.SERVER_LEVEL, *routes.PER_ROOM]:
        for verb in VERBS:
            if verb in vars(handler) or any(
                verb in vars(base)
                for base in handler.__mro__
                if base.__module__.startswith("jupyter_copilot_room")
            ):
                yield path, handler, verb


def test_every_route_calls_one_api_method_and_decides_nothing():
    seen = {}
    for path, handler, verb in rest_methods():
        function = getattr(handler, verb)
        commands = [name for name in api_calls(function) if name not in NOT_A_COMMAND]
        assert len(commands) == 1, (path, verb, commands)
        api, _, method = commands[0].partition(".")
        assert callable(getattr(_API[api], method, None)), (path, verb, commands[0])
        if handler not in PAGES:
            assert decisions(function) == [], (path, verb, decisions(function))
        seen[(path, verb, handler)] = commands[0]
    # One method a command: no two commands of the table share an API method (a thread's
    # routes reuse the room's handlers, so they are the room's commands again).
    own = {
        (path, verb): name
        for (path, verb, handler), name in seen.items()
        if not path.startswith("threads/(?P") and handler not in PAGES
    }
    assert len(set(own.values())) == len(own), sorted(own.items(), key=lambda kv: kv[1])
    assert len(own) > 30, "the walk found the route table's commands"


def test_every_rest_handler_is_walked():
    """A handler serving REST is a RoomAPIHandler, and has at least one verb the walk checks."""
    walked = {handler for _, handler, _ in rest_methods()}
    served = {handler for _, handler in [*routes.SERVER_LEVEL, *routes.PER_ROOM]}
    rest = {h for h in served if issubclass(h, RoomAPIHandler)}
    assert rest <= walked
    assert served - rest <= PAGES


def test_the_walk_sees_a_handler_that_decides():
    class Deciding(RoomAPIHandler):
        async def post(self) -> None:
            if self.identity.username == "alice":
                await self.room.abort(self.identity)
            await self.reply(self.room.describe(self.identity))

    assert api_calls(Deciding.post) == ["RoomAPI.abort", "RoomAPI.describe"]
    assert decisions(Deciding.post)
