"""What the Copilot runtime's process environment holds: an allow-list, never the server's whole
environment.

The runtime hands its environment to every shell command the agent runs (measured with runtime
1.0.102: `env` prints it, `COPILOT_SDK_AUTH_TOKEN` included), so one approved `env` would show
the hub's token, the server's own, a Copilot login or a provider's key to everyone who reads the
transcript. The runtime gets what it and ordinary commands need (paths, locale, proxies,
certificates, the terminal, its own `COPILOT_*` settings); tokens reach it over JSON-RPC instead
(`model_access.py`). A host adds names on purpose with `c.CopilotRoom.agent_env`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: Names passed as they are: what the runtime and ordinary shell commands need.
NAMES = frozenset(
    {
        *("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM"),
        *("TMPDIR", "TEMP", "TMP"),
        *("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"),
        *("http_proxy", "https_proxy", "no_proxy", "all_proxy"),
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"),
        *("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV"),  # the server's Python for `python`
        "GH_HOST",  # a GitHub Enterprise host the login's token belongs to
    }
)
#: Families passed by prefix: the locale, the XDG directories, the runtime's own settings
#: (`COPILOT_PKG_CACHE_HOME`, `COPILOT_CLI_PATH`, ...).
PREFIXES = ("LC_", "XDG_", "COPILOT_")
#: A prefixed name that names a credential is not a setting (`COPILOT_GITHUB_TOKEN`).
CREDENTIAL_WORDS = ("TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL")


def allowed(name: str) -> bool:
    """Whether the runtime gets `name` without a host asking for it."""
    if name in NAMES:
        return True
    upper = name.upper()
    return name.startswith(PREFIXES) and not any(word in upper for word in CREDENTIAL_WORDS)


def agent_environment(environ: Mapping[str, str], added: Iterable[str] = ()) -> dict[str, str]:
    """The runtime's environment: the allowed part of `environ`, and the names a host `added`
    (`c.CopilotRoom.agent_env`), which pass whatever they are."""
    extra = frozenset(added)
    return {name: value for name, value in environ.items() if name in extra or allowed(name)}
