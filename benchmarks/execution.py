"""Execution benchmark: how soon the agent's run of a cell shows its first output to a second
person, next to the same cell run by a person through the kernel, in the same run.

    python benchmarks/execution.py        # about a minute

The server (in process, pytest-jupyter), the REAL Copilot runtime with the scripted model, a real
ipykernel in the notebook's session and a pycrdt client of jupyter-collaboration as the second
person. For each of RUNS rounds:

- agent: the approval of a `notebook_run_cells` card is sent (t0) -> the cell's first output is
  in the second person's copy of the notebook (runtime -> tool call -> kernel -> shared document
  -> websocket -> client);
- person: the same code executed by a person's own kernel client (jupyter_client, as JupyterLab's
  kernel connection does) (t0) -> the first output message on that client. A person's frontend
  then writes it to the shared document, so this is a lower bound of what others see.

Prints p50 / p99 / max for both with the target beside them. Not part of the test suite.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from quick import sized

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from tests.harness.helpers import eventually, finished, ready
from tests.test_execution import (  # noqa: F401 (fixtures)
    PATH,
    jp_server_config,
    open_session,
    person_kernel,
    room_config,
)
from tests.test_notebooks import join_notebook, write_notebook

RUNS = sized(20, 2)
CODE = "import time\nprint(time.time_ns(), flush=True)"  # a new output each run
TARGET_AGENT_P50 = 0.5  # seconds: the agent's run feels as immediate as a person's
TARGET_AGENT_OVER_PERSON = 0.3  # seconds the agent's p50 may add over a person's own run


def shown(person) -> str:
    """The text of the cell's outputs in this person's copy of the notebook."""
    return "".join(str(o.get("text", "")) for o in person.notebook.get_cell(0)["outputs"])


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name, values, target):
    return (
        f"{name:<34} p50 {percentile(values, 0.5) * 1000:7.1f} ms   "
        f"p99 {percentile(values, 0.99) * 1000:7.1f} ms   max {max(values) * 1000:7.1f} ms   "
        f"(target {target})"
    )


async def test_execution_latency(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    cells = write_notebook(jp_root_dir / PATH, [CODE]).cells
    await ready(api, room)
    kernel_id = await open_session(jp_fetch)
    kernel = await person_kernel(jp_serverapp, kernel_id)
    second = await join_notebook(jp_fetch, jp_http_port, jp_base_url, PATH)
    await eventually(lambda: second.notebook.cell_number == 1, timeout=30, what="the sync")

    def run(request):
        if request.tool_results:
            return Reply("ok")
        call = {"path": PATH, "cell_ids": [cells[0].id]}
        return Reply(tool_calls=(ToolCall("notebook_run_cells", call),))

    model.script = run
    agent, person = [], []
    for _ in range(RUNS):
        prompt = (await api("bob", "POST", "prompts", body={"text": "run"})).json
        await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
        [request_id] = list(room.document.approvals.to_py())
        before = shown(second)
        start = time.monotonic()
        await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
        await eventually(lambda b=before: shown(second) not in ("", b), timeout=30, what="output")
        agent.append(time.monotonic() - start)
        await eventually(lambda p=prompt: p["id"] in finished(room), timeout=30)

        seen: list[float] = []

        def first_output(msg, seen=seen):
            if msg["msg_type"] == "stream" and not seen:
                seen.append(time.monotonic())

        start = time.monotonic()
        await kernel.execute_interactive(CODE, output_hook=first_output, timeout=30)
        person.append(seen[0] - start)

    print()
    print(f"Execution: first output, {RUNS} runs each")
    print(
        line("agent: approval -> second client", agent, f"p50 < {TARGET_AGENT_P50 * 1000:.0f} ms")
    )
    print(line("person: execute -> own client", person, "reference"))
    extra = statistics.median(agent) - statistics.median(person)
    print(
        f"agent p50 over person p50: {extra * 1000:.1f} ms "
        f"(target < {TARGET_AGENT_OVER_PERSON * 1000:.0f} ms)"
    )
    second.close()
    kernel.stop_channels()


if __name__ == "__main__":
    from with_pytest import run

    sys.exit(run(__file__))
