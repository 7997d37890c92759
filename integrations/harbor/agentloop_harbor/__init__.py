"""agentloop for Harbor: `--agent-import-path agentloop_harbor.agent:AgentloopAgent`.

The package itself imports nothing, so that it can be found (by unittest's discovery, by a
packager) where Harbor is not installed.
"""
