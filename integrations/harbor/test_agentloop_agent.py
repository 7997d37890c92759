"""The Harbor adapter against stand-ins for Harbor's modules (stubs/), its commands run by real
bash in a temporary directory, with a stand-in `agentloop` on PATH that records how it was
called and answers as agentloop's stream-json does. Run: python3 -m unittest discover integrations/harbor
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path, PurePosixPath
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "stubs"))

from harbor.models.agent.context import AgentContext  # noqa: E402
from harbor.models.trial.paths import EnvironmentPaths  # noqa: E402

from agentloop_harbor.agent import AgentloopAgent, run_command  # noqa: E402

RESULT = {
    "type": "result",
    "subtype": "success",
    "stop_reason": "end_turn",
    "num_turns": 3,
    "duration_ms": 1200,
    "session_id": "s1",
    "usage": {
        "input_tokens": 100,
        "output_tokens": 40,
        "cache_read_input_tokens": 900,
        "cache_creation_input_tokens": 10,
    },
    "total_cost_usd": 0.0123,
}

# A stand-in for agentloop: `export` writes a trajectory; a run records its arguments and
# environment, then answers at once, or (SLEEP set) waits and answers SIGTERM as agentloop
# does, with an interrupted result.
FAKE_AGENTLOOP = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    if [ "$1" = "export" ]; then
      printf '%s' '{"final_metrics": {"total_prompt_tokens": 7}}' > "$5"
      exit 0
    fi
    printf '%s\\n' "$@" > "$CALLS/args"
    env > "$CALLS/env"
    if [ -n "${SLEEP:-}" ]; then
      trap 'echo "{\\"type\\": \\"result\\", \\"subtype\\": \\"error_interrupted\\"}"; exit 130' TERM
      sleep "$SLEEP" & wait
    fi
    echo '{"type": "system", "subtype": "init"}'
    echo 'RESULT'
    exit 0
    """
).replace("RESULT", json.dumps(RESULT))


class LocalEnvironment:
    """Keeps each command; with `runs`, runs it with real bash here, as the container would.
    Install commands are only kept: they would reach the network."""

    def __init__(self, path_dir: Path, extra_env: dict[str, str]):
        self.commands: list[tuple[str, str]] = []
        self.uploads: list[tuple[Path, str]] = []
        self.runs = False
        self._path = f"{path_dir}:{os.environ['PATH']}"
        self._extra_env = extra_env

    async def exec(self, command, env=None, cwd=None, timeout_sec=None, user=None):
        self.commands.append((user, command))
        if not self.runs:
            return subprocess.CompletedProcess(command, 0, "", "")
        full_env = {"PATH": self._path, "HOME": self._extra_env["HOME"], **self._extra_env, **(env or {})}
        return subprocess.run(["bash", "-c", command], env=full_env, capture_output=True, text=True, timeout=30)

    async def upload_file(self, source_path, target_path):
        self.uploads.append((Path(source_path), target_path))


class AdapterTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="agentloop-harbor-"))
        self.logs = self.dir / "logs"
        self.logs.mkdir()
        self.calls = self.dir / "calls"
        self.calls.mkdir()
        bin_dir = self.dir / "bin"
        bin_dir.mkdir()
        fake = bin_dir / "agentloop"
        fake.write_text(FAKE_AGENTLOOP)
        fake.chmod(0o755)
        self.env = LocalEnvironment(bin_dir, {"CALLS": str(self.calls), "HOME": str(self.dir)})
        # The container's /logs/agent is this test's log directory.
        patcher = mock.patch.object(EnvironmentPaths, "agent_dir", PurePosixPath(self.logs))
        patcher.start()
        self.addCleanup(patcher.stop)

    def agent(self, **kwargs) -> AgentloopAgent:
        return AgentloopAgent(logs_dir=self.logs, model_name="anthropic/claude-sonnet-5-5", **kwargs)

    def test_installs_node_then_agentloop_with_npm_and_no_install_scripts(self):
        asyncio.run(self.agent(package="agentloop@0.1.0").install(self.env))
        node, npm = self.env.commands
        self.assertEqual(node[0], "root")
        self.assertIn("nvm install 20", node[1])
        self.assertEqual(npm[0], "root")
        self.assertTrue(npm[1].endswith("npm install -g --ignore-scripts agentloop@0.1.0"))
        # The node step is a shell line bash can read.
        subprocess.run(["bash", "-n", "-c", node[1]], check=True)

    def test_installs_a_tarball_from_this_machine_by_uploading_it_first(self):
        tarball = self.dir / "agentloop-0.1.0.tgz"
        tarball.write_bytes(b"not really a tarball")
        asyncio.run(self.agent(package=str(tarball)).install(self.env))
        self.assertEqual(self.env.uploads, [(tarball, "/tmp/agentloop-0.1.0.tgz")])
        self.assertTrue(self.env.commands[-1][1].endswith("--ignore-scripts /tmp/agentloop-0.1.0.tgz"))

    def test_runs_the_instruction_headless_on_the_model_harbor_names_and_fills_the_context(self):
        agent = self.agent(agent_timeout_sec=900, max_turns=80)
        context = AgentContext()
        self.env.runs = True
        with mock.patch.dict(os.environ, {"ANTHROPIC_API_KEY": "sk-test", "OPENAI_API_KEY": "sk-other"}):
            asyncio.run(agent.run("Fix the build; don't break 'tests'.", self.env, context))
        args = (self.calls / "args").read_text().splitlines()
        self.assertEqual(
            args,
            [
                "--provider", "anthropic", "--model", "claude-sonnet-5-5",
                "--permission-mode", "yolo", "--output-format", "stream-json",
                "--max-turns", "80", "-p", "Fix the build; don't break 'tests'.",
            ],
        )
        seen = (self.calls / "env").read_text()
        self.assertIn("ANTHROPIC_API_KEY=sk-test", seen)
        self.assertNotIn("OPENAI_API_KEY", seen)  # only the named provider's key goes in
        self.assertIn(f"XDG_STATE_HOME={self.logs}/agentloop-state", seen)
        # The run's own deadline: the budget less the reserve.
        self.assertIn("timeout --kill-after=20 840s agentloop", self.env.commands[-1][1])

        agent.populate_context_post_run(context)
        self.assertEqual(context.n_input_tokens, 1010)
        self.assertEqual(context.n_cache_tokens, 900)
        self.assertEqual(context.n_output_tokens, 40)
        self.assertEqual(context.cost_usd, 0.0123)
        self.assertEqual(context.metadata["agentloop"]["subtype"], "success")
        self.assertEqual(context.metadata["agentloop"]["exit_code"], 0)
        self.assertTrue((self.logs / "trajectory.json").is_file())

    def test_stops_agentloop_at_its_deadline_and_still_exports_the_trajectory(self):
        command = run_command(
            "take your time",
            provider="anthropic",
            model="claude-sonnet-5-5",
            agent_dir=PurePosixPath(self.logs),
            deadline_sec=1,
            max_turns=None,
        )
        self.env._extra_env["SLEEP"] = "20"
        self.env.runs = True
        started = time.monotonic()
        asyncio.run(self.env.exec(command))
        self.assertLess(time.monotonic() - started, 10)
        context = AgentContext()
        self.agent().populate_context_post_run(context)
        # agentloop ended the run itself, on SIGTERM; `timeout` says so with 124.
        self.assertEqual(context.metadata["agentloop"]["subtype"], "error_interrupted")
        self.assertEqual(context.metadata["agentloop"]["exit_code"], 124)
        self.assertTrue((self.logs / "trajectory.json").is_file())

    def test_a_run_killed_before_its_result_takes_the_trajectorys_totals(self):
        (self.logs / "agentloop.jsonl").write_text('{"type": "system", "subtype": "init"}\n{"type": "assis')
        trajectory = {
            "final_metrics": {
                "total_prompt_tokens": 500,
                "total_cached_tokens": 300,
                "total_completion_tokens": 20,
                "total_cost_usd": 0.004,
            }
        }
        (self.logs / "trajectory.json").write_text(json.dumps(trajectory))
        context = AgentContext()
        self.agent().populate_context_post_run(context)
        self.assertEqual(
            (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd),
            (500, 300, 20, 0.004),
        )
        self.assertEqual(context.metadata["agentloop"]["subtype"], "killed")

    def test_refuses_a_model_without_its_provider_in_one_sentence(self):
        agent = AgentloopAgent(logs_dir=self.logs, model_name="claude-sonnet-5-5")
        with self.assertRaisesRegex(ValueError, "provider/model"):
            asyncio.run(agent.run("x", self.env, AgentContext()))

    def test_the_deadline_keeps_a_reserve_and_never_falls_under_a_minute(self):
        self.assertIsNone(self.agent().deadline_sec())
        self.assertEqual(self.agent(agent_timeout_sec=600, deadline_reserve_sec=90).deadline_sec(), 510)
        self.assertEqual(self.agent(agent_timeout_sec=30).deadline_sec(), 60)


class RegistryEntryTest(unittest.TestCase):
    def test_names_this_package_at_its_version_and_its_acp_command(self):
        root = HERE.parent.parent
        package = json.loads((root / "package.json").read_text())
        entry = json.loads((root / "integrations/acp-registry/agentloop/agent.json").read_text())
        self.assertEqual(entry["version"], package["version"])
        self.assertEqual(
            entry["distribution"]["npx"],
            {"package": f"{package['name']}@{package['version']}", "args": ["acp"]},
        )
        for field in ("id", "name", "description", "authors", "license"):
            self.assertTrue(entry[field], field)


if __name__ == "__main__":
    unittest.main()
