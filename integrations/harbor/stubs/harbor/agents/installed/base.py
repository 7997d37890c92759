"""Harbor's BaseInstalledAgent, reduced to what the adapter uses: the model, the log
directory, and commands run in the environment as the agent's user or as root."""

from pathlib import Path


class BaseInstalledAgent:
    SUPPORTS_ATIF: bool = False

    def __init__(self, logs_dir: Path, model_name: str | None = None, *args, **kwargs):
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name

    async def exec_as_agent(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await environment.exec(command, env=env, cwd=cwd, timeout_sec=timeout_sec, user="agent")

    async def exec_as_root(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await environment.exec(command, env=env, cwd=cwd, timeout_sec=timeout_sec, user="root")
