"""The agent seam (`base.py`) and its adapters: the Copilot runtime (`copilot/`), the demo model."""
