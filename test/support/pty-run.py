# Runs a command in a pseudo-terminal and relays bytes both ways, so tests can drive the
# REPL exactly as a person at a terminal would (line editing, Ctrl-C as the byte 0x03).
# Usage: python3 pty-run.py COMMAND [ARGS...]; exits with the command's exit code.
import os
import pty
import select
import sys

pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

stdin_open = True
while True:
    readable = [master] + ([0] if stdin_open else [])
    ready, _, _ = select.select(readable, [], [], 0.05)
    if 0 in ready:
        data = os.read(0, 4096)
        if data:
            os.write(master, data)
        else:
            stdin_open = False
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)

_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
