"""Every REST route is a thin call into the in-process API (`jupyter_copilot_room.api`): each of
its methods calls one API method, one command a method, and decides nothing itself, so a bridge
that calls the API gets the answers REST gets. The walk covers every route `routes()` serves; the
live sockets and the agents' MCP route are not commands, and what holds of them instead is
checked below."""

import ast
import inspect
import textwrap
from types import SimpleNamespace

from jupyter_copilot_room.api import RoomAPI, RoomLinksAPI, RoomsAPI, ThreadsAPI
from jupyter_copilot_room.handlers import people, routes, threads
from jupyter_copilot_room.handlers.notebook_tools import NotebookToolsHandler
from jupyter_copilot_room.handlers.room_handler import RoomAPIHandler
from jupyter_copilot_room.handlers.websocket import RoomWebSocketHandler

from .harness.helpers import parsed

VERBS = ("get", "post", "put", "patch", "delete")
#: The API object each handler reaches, by how it names it.
OBJECTS = {
    "self.room": RoomAPI,
    "self.rooms": RoomsAPI,
    "self.room.threads": ThreadsAPI,
    "self.room.links": RoomLinksAPI,
    "room.threads": ThreadsAPI,  # a thread's socket opens its room's thread
}
#: What every answer awaits, not a command (`RoomAPIHandler.reply`).
NOT_A_COMMAND = {"RoomAPI.durable"}
#: The claim link is an HTML page, not a REST command: it redirects a browser signed in by the
#: link's token to the same page with its login cookie, and shows a refusal as a page.
PAGES = {people.ClaimHandler}
#: The live documents: a socket is opened once and then streams, so it is no command; it is
#: opened for a signed-in caller whom the API admits, and served and re-checked by the API.
SOCKETS = {RoomWebSocketHandler, threads.ThreadWebSocketHandler}
#: The room's notebook tools for its agents (MCP): the caller is an agent session known by the
#: bearer token its grant gave it, not a person with a login, and it never reaches the room's
#: API (the tools server acts for the grant's room).
AGENTS = {NotebookToolsHandler}
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


def served() -> list[tuple[str, type]]:
    """Every (route, handler) the extension serves, as `app.py` gets them."""
    context = SimpleNamespace(notebook_tools=None)
    return [(path, handler) for path, handler, _ in routes.routes(context)]  # type: ignore[arg-type]


def rest_methods():
    """Every (route, handler, verb) the extension serves over REST."""
    for path, handler in served():
        if handler in SOCKETS | AGENTS:
            continue
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
    # One method a command: no two commands share an API method (a route served under several
    # prefixes, main's, a named room's, a thread's, is one handler, so one command).
    own = {
        (handler, verb): name for (_, verb, handler), name in seen.items() if handler not in PAGES
    }
    assert len(set(own.values())) == len(own), sorted(own.items(), key=lambda kv: kv[1])
    assert len(own) > 30, "the walk found the route table's commands"


def test_every_rest_handler_is_walked():
    """A handler serving REST is a RoomAPIHandler, and has at least one verb the walk checks."""
    walked = {handler for _, handler, _ in rest_methods()}
    handlers = {handler for _, handler in served()}
    rest = {h for h in handlers if issubclass(h, RoomAPIHandler)}
    assert rest <= walked
    assert handlers - rest == PAGES | SOCKETS | AGENTS


def decorators(cls: type, name: str) -> list[str]:
    """The decorators on `cls.name` where it is defined."""
    (function,) = parsed(textwrap.dedent(inspect.getsource(getattr(cls, name)))).body
    return [ast.unparse(d) for d in function.decorator_list]


def only_translates_refusals(function) -> bool:
    """Its one decision is a `try` that turns the API's `Refused` into an HTTP error."""
    tree = parsed(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    found = [node for node in ast.walk(tree) if isinstance(node, DECISIONS)]
    return (
        len(found) == 1
        and isinstance(found[0], ast.Try)
        and [ast.unparse(h.type) for h in found[0].handlers if h.type] == ["Refused"]
        and all(isinstance(h.body[-1], ast.Raise) for h in found[0].handlers)
    )


def test_a_socket_opens_for_whom_the_api_admits_and_the_api_serves_it():
    socket = RoomWebSocketHandler
    assert decorators(socket, "get") == ["ws_authenticated", "authorized"]
    assert api_calls(socket.get) == ["RoomAPI.check_watcher"]
    assert only_translates_refusals(socket.get)
    assert api_calls(socket.room_to_serve) == ["RoomsAPI.open"]
    assert api_calls(socket.open) == ["RoomAPI.connect"] and decisions(socket.open) == []
    # The re-check asks the identity provider who the socket's user is now (not the room's
    # rule), and the API whether that person still watches.
    assert api_calls(socket._still_admitted) == ["RoomAPI.still_watches"]
    for other in SOCKETS - {socket}:
        assert {"get", "open", "_still_admitted"}.isdisjoint(vars(other)), other
        assert api_calls(other.room_to_serve) == ["ThreadsAPI.open"], other
        assert decisions(other.room_to_serve) == [], other


def statements(function) -> list[str]:
    """`function`'s statements, its docstring left out."""
    (tree,) = parsed(textwrap.dedent(inspect.getsource(inspect.unwrap(function)))).body
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    return [ast.unparse(statement) for statement in body]


def calls(function) -> list[str]:
    tree = parsed(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    return [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]


def test_the_mcp_route_is_known_by_its_bearer_token_not_a_login():
    for handler in AGENTS:
        verbs = [verb for verb in VERBS if verb in vars(handler)]
        assert verbs, handler
        for verb in verbs:
            function = getattr(handler, verb)
            assert getattr(function, "__allow_unauthenticated", False), (handler, verb)
            body = statements(function)
            # A verb either only refuses, or asks for the grant first and stops without one.
            if len(body) == 1:
                assert body[0].startswith("self._refuse("), (handler, verb)
            else:
                assert body[:2] == ["grant = self._grant()", "if grant is None:\n    return"]
        assert "self.tools.granted" in calls(handler._grant)  # the token's grant, or None
        for name, member in vars(handler).items():
            if inspect.isfunction(member):
                assert api_calls(member) == [], (handler, name)


def test_the_walk_sees_a_handler_that_decides():
    class Deciding(RoomAPIHandler):
        async def post(self) -> None:
            if self.identity.username == "alice":
                await self.room.abort(self.identity)
            await self.reply(self.room.describe(self.identity))

    assert api_calls(Deciding.post) == ["RoomAPI.abort", "RoomAPI.describe"]
    assert decisions(Deciding.post)
