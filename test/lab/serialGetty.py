#!/usr/bin/python3
"""The lab's stand-in for an instance's ttyS0 getty, run as the login shell of the serial console's
INSTANCE_ID.port0 user on the lab sshd's PTY. It prints what agetty and login print on an Amazon
Linux serial port: an issue line, "HOST login: ", "Password: " with echo off, and "Login incorrect"
for anything but LAB_SERIAL_USER / LAB_SERIAL_PASSWORD (unset: nobody has a password, the case the
serial console's users meet most). The PTY itself echoes what is typed, as a real tty does.
"""
import os, sys, termios, time

fd = sys.stdin.fileno()
user_ok, password_ok = os.environ.get('LAB_SERIAL_USER'), os.environ.get('LAB_SERIAL_PASSWORD')
out = sys.stdout

def say(text):
    out.write(text)
    out.flush()

say('\nAmazon Linux 2023 (lab serial console)\nKernel 6.1.0 on an x86_64 (ttyS0)\n\n')
while True:
    say('ip-10-0-0-1 login: ')
    line = sys.stdin.readline()
    if not line:
        break
    user = line.strip()
    if not user:
        continue
    saved = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    say('Password: ')
    password = sys.stdin.readline()
    termios.tcsetattr(fd, termios.TCSANOW, saved)
    say('\n')
    time.sleep(0.2)
    if user_ok and password_ok and user == user_ok and password.strip() == password_ok:
        say('Last login: never on ttyS0\n')
        os.execve('/bin/sh', ['sh', '-i'], {**os.environ, 'PS1': 'serial$ '})
    say('\nLogin incorrect\n\n')
