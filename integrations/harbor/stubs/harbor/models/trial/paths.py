"""Harbor's EnvironmentPaths: where a trial's logs are inside the environment."""

from pathlib import PurePosixPath


class EnvironmentPaths:
    agent_dir = PurePosixPath("/logs/agent")
