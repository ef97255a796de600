"""The ACP adapter: any agent that speaks the Agent Client Protocol as the room's agent, behind the
agent seam. This package is the only code that imports the `acp` library
(`agent-client-protocol`): `agent_spec.py` reads `c.CopilotRoom.agents` (it imports no ACP, and
this package's import imports nothing, so the server checks its configuration without it),
`acp_agent.py` runs the agent's process and the room's session in it, `session_updates.py` turns
its updates into the room's events and `permission_asks.py` its permission requests into cards.
"""
