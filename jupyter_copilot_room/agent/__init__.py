"""The agent seam (`seam.py`) and its adapters: the Copilot runtime (`copilot/`), ACP agents
(`acp/`), the demo model (`demo.py`)."""
