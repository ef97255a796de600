"""What the tests stand on: the people, the room's configuration, real server processes, clients
and the fixtures that put them together (`pytest_plugin.py`, registered in `tests/conftest.py`;
the browser and hub fixtures are imported by the conftest of their folder)."""
