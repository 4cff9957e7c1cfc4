"""Hermes Agent's ACP server running the agent that `hermes chat -Q --yolo` runs.

CoSec keeps one of these alive per trial instead of starting `hermes chat` for every
delivery. Left alone, the ACP server builds a different agent from the CLI's: platform
`acp` (another system prompt), the `hermes-acp` toolset (no `clarify`, no `cronjob`),
a step budget of 90 whatever `agent.max_turns` says, and edit approvals asked of the
client. Each is put back to the CLI's here, so a delivery sees the same prompt, tools
and budget either way. This patches Hermes internals: re-check it whenever the pinned
version changes.
"""
import os
import sys

# What `hermes chat --yolo` sets: no approval prompts (the sandbox confines the
# process), and the interactive flag that offers the cronjob tool.
os.environ.setdefault("HERMES_YOLO_MODE", "1")
os.environ.setdefault("HERMES_INTERACTIVE", "1")

import run_agent  # noqa: E402
from hermes_cli.config import load_config  # noqa: E402
import acp_adapter.edit_approval as edit_approval  # noqa: E402
from acp_adapter.entry import main  # noqa: E402

STEP_BUDGET = int(((load_config().get("agent") or {}).get("max_turns")) or 90)


class CliAgent(run_agent.AIAgent):
    """The agent of `hermes chat`, for sessions the ACP server opens."""

    def __init__(self, *args, **kwargs):
        if kwargs.get("platform") == "acp":
            kwargs["platform"] = "cli"
            servers = [t for t in (kwargs.get("enabled_toolsets") or []) if t.startswith("mcp-")]
            kwargs["enabled_toolsets"] = ["hermes-cli", *servers]
            kwargs["max_iterations"] = STEP_BUDGET
        super().__init__(*args, **kwargs)


run_agent.AIAgent = CliAgent
edit_approval.make_acp_edit_approval_requester = lambda *args, **kwargs: None
main(sys.argv[1:])
