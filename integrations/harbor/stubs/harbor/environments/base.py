"""Harbor's BaseEnvironment: where the task runs (a container)."""


class BaseEnvironment:
    async def exec(self, command, env=None, cwd=None, timeout_sec=None, user=None):
        raise NotImplementedError

    async def upload_file(self, source_path, target_path):
        raise NotImplementedError
