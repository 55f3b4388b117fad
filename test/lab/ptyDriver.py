#!/usr/bin/env python3
"""Runs a command on a real pseudo-terminal and drives it like a person at a terminal.

Usage: ptyDriver.py ROWS COLS SCRIPT_JSON -- CMD ARGS...
SCRIPT_JSON is a list of steps: ["send", text] | ["wait", regex] | ["sleep", s] | ["resize", rows, cols].
Prints everything the command wrote, then a last line "EXIT:<status>". Resizing the master side
makes the kernel send SIGWINCH to the command, exactly as a terminal emulator does.
"""
import fcntl, json, os, pty, re, select, struct, sys, termios, time

rows, cols, script = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
cmd = sys.argv[sys.argv.index('--') + 1:]

def winsize(fd, r, c):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', r, c, 0, 0))

pid, fd = pty.fork()
if pid == 0:
    winsize(0, rows, cols)
    os.execvp(cmd[0], cmd)

out = b''
deadline = time.time() + 25

def pump(timeout):
    global out
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        out += data
    return True

for step in script:
    if step[0] == 'send':
        os.write(fd, step[1].encode())
    elif step[0] == 'sleep':
        end = time.time() + step[1]
        while time.time() < end and pump(0.05):
            pass
    elif step[0] == 'resize':
        winsize(fd, step[1], step[2])
    elif step[0] == 'wait':
        pat = re.compile(step[1].encode())
        while not pat.search(out) and time.time() < deadline:
            if not pump(0.1):
                break
while time.time() < deadline and pump(0.1):
    pass
# A command still waiting at the deadline (a prompt nobody answers) is killed, so a failing test
# ends with what the terminal showed instead of hanging.
# (Output that ended before the deadline: the command is exiting, and is waited for below.)
done, status = os.waitpid(pid, os.WNOHANG) if time.time() >= deadline else (0, 0)
if done == 0 and time.time() >= deadline:
    os.kill(pid, 9)
    out += b'\n[ptyDriver: killed at the deadline]'
if done == 0:
    _, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf-8', 'replace'))
sys.stdout.write('\nEXIT:%d\n' % (os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)))
