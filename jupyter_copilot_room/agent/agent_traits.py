"""The agent's traits (`c.CopilotRoom.model`, `.provider`, `.agents`, ...): which agent a room
runs and how it reaches its model, declared as data; `app.py` builds `CopilotRoom`'s one
configuration base from them, the room settings' and the fronts' traits."""

from __future__ import annotations

from traitlets import Dict, Float, List, TraitType, Type, Unicode

from .seam import COPILOT, Agent


def agent_traits() -> dict[str, TraitType]:
    return {
        "model": Unicode(
            "", config=True, help="The model the agent's session asks for (required with provider)."
        ),
        "models": List(
            Unicode(),
            config=True,
            help="With a provider: further models hosts may switch to from the room (the agent "
            "starts with `model`). With a Copilot login the room offers the models it lists.",
        ),
        "provider": Dict(
            config=True,
            help="Your own OpenAI-compatible (or 'azure', 'anthropic') endpoint for the agent, "
            "e.g. {'type': 'openai', 'base_url': ..., 'api_key_env': 'NAME_OF_THE_KEY_VARIABLE'}.",
        ),
        "cli_path": Unicode("", config=True, help="Path to the Copilot runtime binary."),
        "agent_env": List(
            Unicode(),
            config=True,
            help="Environment variables the Copilot runtime, and every shell command the agent "
            "runs, gets beyond its allow-list (PATH, HOME, locale, proxies, certificates, TERM, "
            "XDG_*, COPILOT_* settings), e.g. ['JAVA_HOME', 'PIP_INDEX_URL']. Whatever is named "
            "here shows in the output of an approved `env` to everyone in the room: never name a "
            "secret.",
        ),
        "github_host": Unicode(
            "",
            config=True,
            help="The GitHub Enterprise Cloud host (data residency, e.g. 'octocorp.ghe.com') "
            "that a host signs the room in to from the panel; '' is github.com.",
        ),
        "signin_timeout": Float(
            600.0,
            min=1,
            config=True,
            help="Seconds a sign-in to Copilot from the panel may stay open (GitHub's page, the "
            "return, the plain-text consent) before the room cancels it.",
        ),
        "model_timeout": Float(
            300.0,
            min=1,
            config=True,
            help="Seconds a model call may go without sending anything before its turn fails with "
            "'The model endpoint did not answer' (the runtime itself waits forever).",
        ),
        "agent_class": Type(
            "jupyter_copilot_room.agent.copilot.CopilotAgent",
            klass=Agent,
            allow_none=True,
            config=True,
            help="The agent the room drives, as a subclass of "
            "jupyter_copilot_room.agent.seam.Agent.",
        ),
        "agents": Dict(
            config=True,
            help="Agents of the Agent Client Protocol a room may run instead of Copilot: "
            "{'<name>': {'acp': [command, *args], 'title': 'Claude Code', 'env': {...}, "
            "'env_from': [...], 'mode': '...'}}. `env` holds literal values; `env_from` names "
            "variables of the server's environment passed through (secrets); the agent's "
            "environment is otherwise the room's allow-list. A mode that runs tools without asking "
            "is refused.",
        ),
        "default_agent": Unicode(
            COPILOT,
            config=True,
            help="The agent of every new room: 'copilot' (the Copilot SDK's, `agent_class`) or a "
            "name of c.CopilotRoom.agents.",
        ),
    }
