"""agentloop as a Harbor agent, for Terminal-Bench and the other Harbor datasets.

Harbor installs the agent in the task's container, runs it once with the task's instruction,
then reads what it left in the agent's log directory. agentloop runs headless there
(`agentloop -p`, stream-json on stdout) with the model Harbor names and a deadline: agentloop
has no time limit of its own, so `timeout` sends it SIGTERM before Harbor's budget ends, which
agentloop answers by ending the run cleanly (exit 130), so its session file is whole and its
ATIF export (`agentloop export --format atif`) is written before Harbor stops the container.

    harbor run -d terminal-bench@2.0 --agent-import-path agentloop_harbor.agent:AgentloopAgent \
        -m anthropic/claude-sonnet-5-5
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path, PurePosixPath

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trial.paths import EnvironmentPaths

# The files agentloop leaves in the agent's log directory (Harbor's /logs/agent, which it
# copies to the host's `logs_dir` after the run).
STREAM_FILE = "agentloop.jsonl"
STDERR_FILE = "agentloop.stderr"
TRAJECTORY_FILE = "trajectory.json"
EXIT_FILE = "agentloop.exit"
# Where agentloop keeps its session files in the container: beside the logs, so that they are
# copied out with them.
STATE_DIR = "agentloop-state"

# The provider presets Harbor's "provider/model" names map to, and the variables each reads:
# its key and the address of a compatible server.
PROVIDER_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "openrouter": ("OPENROUTER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
}

# The Node.js agentloop needs (package.json "engines"), installed with nvm where the image has
# no Node 20 or newer.
NODE_MAJOR = 20
NVM_VERSION = "v0.40.3"


class AgentloopAgent(BaseInstalledAgent):
    """Installs agentloop with npm and runs one task headless, with a deadline."""

    SUPPORTS_ATIF: bool = True

    def __init__(
        self,
        *args,
        package: str = "agentloop",
        agent_timeout_sec: float | None = None,
        deadline_reserve_sec: float = 60.0,
        max_turns: int | None = None,
        **kwargs,
    ) -> None:
        """
        package: what `npm install -g` installs: a version spec (agentloop@0.1.0) or the path on
            this machine of a tarball made by `npm pack`, which is uploaded first.
        agent_timeout_sec: the task's agent budget (the task's [agent] timeout_sec); agentloop
            is stopped `deadline_reserve_sec` before it, so that its files are whole.
        max_turns: agentloop's --max-turns, where the default (agentloop's) is not wanted.
        """
        super().__init__(*args, **kwargs)
        self._package = package
        self._agent_timeout_sec = agent_timeout_sec
        self._deadline_reserve_sec = deadline_reserve_sec
        self._max_turns = max_turns

    @staticmethod
    def name() -> str:
        return "agentloop"

    def get_version_command(self) -> str | None:
        return f"{_NODE_PATH}; agentloop --version"

    def parse_version(self, stdout: str) -> str:
        # "agentloop 0.1.0"
        return stdout.strip().splitlines()[-1].split()[-1]

    async def install(self, environment: BaseEnvironment) -> None:
        await self.exec_as_root(environment, command=install_node_command())
        package = self._package
        if Path(package).is_file():
            remote = f"/tmp/{Path(package).name}"
            await environment.upload_file(Path(package), remote)
            package = remote
        # No package's install script runs: agentloop needs none to answer a task.
        await self.exec_as_root(
            environment,
            command=f"{_NODE_PATH}; npm install -g --ignore-scripts {shlex.quote(package)}",
        )

    async def run(
        self,
        instruction: str,
        environment: BaseEnvironment,
        context: AgentContext,
    ) -> None:
        provider, model = split_model_name(self.model_name)
        agent_dir = PurePosixPath(EnvironmentPaths.agent_dir.as_posix())
        env = {"XDG_STATE_HOME": (agent_dir / STATE_DIR).as_posix()}
        for variable in PROVIDER_VARIABLES.get(provider, ()):
            if os.environ.get(variable):
                env[variable] = os.environ[variable]
        await self.exec_as_agent(
            environment,
            command=run_command(
                instruction,
                provider=provider,
                model=model,
                agent_dir=agent_dir,
                deadline_sec=self.deadline_sec(),
                max_turns=self._max_turns,
            ),
            env=env,
        )

    def deadline_sec(self) -> int | None:
        """Seconds agentloop may run: the budget less the reserve, never under a minute."""
        if self._agent_timeout_sec is None:
            return None
        return max(60, int(self._agent_timeout_sec - self._deadline_reserve_sec))

    def populate_context_post_run(self, context: AgentContext) -> None:
        """Tokens and cost from the run's result line; the trajectory is already a file."""
        result = last_result(self.logs_dir / STREAM_FILE)
        trajectory = read_json(self.logs_dir / TRAJECTORY_FILE)
        metadata = dict(context.metadata or {})
        if result is not None:
            usage = result.get("usage") or {}
            cached = usage.get("cache_read_input_tokens", 0)
            # Harbor's input tokens count the cached ones too, as ATIF's prompt tokens do.
            context.n_input_tokens = (
                usage.get("input_tokens", 0) + cached + usage.get("cache_creation_input_tokens", 0)
            )
            context.n_cache_tokens = cached
            context.n_output_tokens = usage.get("output_tokens", 0)
            context.cost_usd = result.get("total_cost_usd")
            metadata["agentloop"] = {
                key: result.get(key)
                for key in ("subtype", "stop_reason", "num_turns", "duration_ms", "session_id")
            }
        elif trajectory is not None:
            # Killed before its result line: the trajectory's totals are what was recorded.
            totals = trajectory.get("final_metrics") or {}
            context.n_input_tokens = totals.get("total_prompt_tokens")
            context.n_cache_tokens = totals.get("total_cached_tokens")
            context.n_output_tokens = totals.get("total_completion_tokens")
            context.cost_usd = totals.get("total_cost_usd")
            metadata["agentloop"] = {"subtype": "killed"}
        exit_code = read_exit_code(self.logs_dir / EXIT_FILE)
        if exit_code is not None:
            metadata.setdefault("agentloop", {})["exit_code"] = exit_code
        context.metadata = metadata


# nvm puts node in a directory of its own; a shell that has not sourced it sees the image's.
_NODE_PATH = '[ -s "$HOME/.nvm/nvm.sh" ] && . "$HOME/.nvm/nvm.sh"; true'


def install_node_command() -> str:
    """Node 20 or newer, with nvm when the image has none (curl and its CA bundle from apt)."""
    return (
        "set -eu; "
        f'if node -e "process.exit(Number(process.versions.node.split(\'.\')[0]) >= {NODE_MAJOR} ? 0 : 1)" '
        "2>/dev/null; then exit 0; fi; "
        "if ! command -v curl >/dev/null; then apt-get update && "
        "apt-get install -y --no-install-recommends curl ca-certificates; fi; "
        f"curl -fsSL https://raw.githubusercontent.com/nvm-sh/nvm/{NVM_VERSION}/install.sh "
        "| METHOD=script bash; "
        f'. "$HOME/.nvm/nvm.sh"; nvm install {NODE_MAJOR}; nvm alias default {NODE_MAJOR}'
    )


def split_model_name(model_name: str | None) -> tuple[str, str]:
    """Harbor's "provider/model" as agentloop's --provider and --model."""
    if not model_name or "/" not in model_name:
        raise ValueError(
            f"agentloop needs the model as provider/model (anthropic/claude-sonnet-5-5), got {model_name!r}."
        )
    provider, model = model_name.split("/", 1)
    return provider, model


def run_command(
    instruction: str,
    *,
    provider: str,
    model: str,
    agent_dir: PurePosixPath,
    deadline_sec: int | None,
    max_turns: int | None,
) -> str:
    """The shell line that runs the task, then exports its trajectory whatever the outcome."""
    agentloop = [
        "agentloop",
        "--provider",
        provider,
        "--model",
        model,
        # The container is the sandbox: no questions, nobody to answer them.
        "--permission-mode",
        "yolo",
        "--output-format",
        "stream-json",
    ]
    if max_turns is not None:
        agentloop += ["--max-turns", str(max_turns)]
    agentloop += ["-p", instruction]
    # SIGTERM at the deadline ends the run cleanly; SIGKILL 20 seconds later if it has not.
    limited = (["timeout", "--kill-after=20", f"{deadline_sec}s"] if deadline_sec else []) + agentloop
    stream = (agent_dir / STREAM_FILE).as_posix()
    stderr = (agent_dir / STDERR_FILE).as_posix()
    trajectory = (agent_dir / TRAJECTORY_FILE).as_posix()
    return (
        f"{_NODE_PATH}; "
        f"{shlex.join(limited)} > {shlex.quote(stream)} 2> {shlex.quote(stderr)}; "
        "status=$?; "
        f"agentloop export --format atif -o {shlex.quote(trajectory)} 2>> {shlex.quote(stderr)}; "
        # The verifier judges the task; how agentloop ended is in the result line (and its code
        # here), not an error of the trial.
        f"echo $status > {shlex.quote((agent_dir / EXIT_FILE).as_posix())}"
    )


def last_result(path: Path) -> dict | None:
    """The `result` line stream-json ends with, or None when the run was killed before it."""
    if not path.is_file():
        return None
    found = None
    for line in path.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            found = event
    return found


def read_exit_code(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def read_json(path: Path) -> dict | None:
    try:
        value = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None
