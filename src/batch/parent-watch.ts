// A run started by `agentloop batch` ends when the batch does, even when the batch is killed
// with SIGKILL and cannot tell anyone. The batch names itself in AGENTLOOP_PARENT_PID; once
// this process is re-parented (its parent died), it sends itself SIGTERM, which ends the run
// the way Ctrl-C does: tools stopped, their processes ended, the session file complete.

export const PARENT_PID_VARIABLE = "AGENTLOOP_PARENT_PID";

const CHECK_EVERY_MS = 500;

export function endWithParent(env: NodeJS.ProcessEnv): void {
  const parent = Number(env[PARENT_PID_VARIABLE]);
  // Not passed on: an agentloop started by one of our commands has a parent of its own.
  delete env[PARENT_PID_VARIABLE];
  if (!Number.isInteger(parent) || parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, CHECK_EVERY_MS);
  timer.unref();
}
