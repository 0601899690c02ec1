#!/usr/bin/env python3
"""Start-up, memory and idle CPU of the console in a pseudo-terminal (BENCHMARKS.md).

usage: pty_probe.py BINARY BASE_URL|demo NEEDLE
Runs BINARY --base-url BASE_URL (key from SWITCHBOARD_API_KEY), or BINARY demo (which starts
its own seeded local service first), in a 120x40 PTY, and prints:
  - ms from spawn until NEEDLE (text from the first data page) appears on the screen;
  - VmRSS after visiting all five tabs (keys 2..5, then 1) and letting them load;
  - CPU ticks (utime+stime from /proc/PID/stat) over 10 s of idling afterwards.
"""
import fcntl, os, pty, select, signal, struct, sys, termios, time

binary, base_url, needle = sys.argv[1], sys.argv[2], sys.argv[3].encode()

def read_for(fd, secs, until=None):
    buf, end = b"", time.monotonic() + secs
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        buf += chunk
        if until and until in buf:
            return buf, True
    return buf, False

def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime

def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1

t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    args = ["demo"] if base_url == "demo" else ["--base-url", base_url]
    os.execv(binary, [binary, *args])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
os.kill(pid, signal.SIGWINCH)
_, found = read_for(fd, 10, needle)
first_frame_ms = (time.monotonic() - t0) * 1000
print(f"first frame with data: {first_frame_ms:.1f} ms (found={found})")
for key in b"23451":
    os.write(fd, bytes([key]))
    read_for(fd, 0.6)
print(f"RSS with all five tabs loaded: {rss_kb(pid) / 1024:.1f} MiB")
read_for(fd, 1.0)
before = ticks(pid)
read_for(fd, 10.0)
after = ticks(pid)
hz = os.sysconf("SC_CLK_TCK")
print(f"idle CPU over 10 s: {after - before} ticks ({(after - before) / hz / 10 * 100:.2f}% of one core)")
os.write(fd, b"q")
read_for(fd, 1.0)
try:
    os.kill(pid, signal.SIGTERM)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
