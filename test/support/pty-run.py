# Runs a command in a pseudo-terminal and relays bytes both ways, so tests can drive the
# REPL exactly as a person at a terminal would (line editing, Ctrl-C as the byte 0x03).
# Usage: python3 pty-run.py [--size COLUMNSxROWS] COMMAND [ARGS...]; exits with the command's
# exit code. Without --size the terminal has no size (0 columns), as a bare pseudo-terminal.
import fcntl
import os
import pty
import select
import struct
import sys
import termios

command = sys.argv[1:]
size = None
if command[:1] == ["--size"]:
    columns, rows = command[1].split("x")
    size = struct.pack("HHHH", int(rows), int(columns), 0, 0)
    command = command[2:]

pid, master = pty.fork()
if pid == 0:
    # Set in the child, before the command starts, so its first look at the size sees it.
    if size:
        fcntl.ioctl(1, termios.TIOCSWINSZ, size)
    os.execvp(command[0], command)

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
