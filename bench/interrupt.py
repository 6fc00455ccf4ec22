#!/usr/bin/env python3
"""Ctrl-C (SIGINT) at five moments of a long GEMM run, each in its own
process, on the GPU machine (from the repository root, .devbin/vkbench
built): when it arrived, the exit status, how long the process took to exit
after it, and everything it printed. The in-flight ownership issue asks for
exit 130 within a second of the GPU's current submission, and no "leaking"
warning.

    source .gl/enter.sh; python3 bench/interrupt.py [SIZE]
"""
import signal
import subprocess
import sys
import time

size = sys.argv[1] if len(sys.argv) > 1 else "8192x8192x8192"
for after in (1.5, 2.5, 3, 4, 6):
    start = time.monotonic()
    p = subprocess.Popen(
        [".devbin/vkbench", "run", "gemm", "--size", size, "--cache", "off", "-q", "--budget", "60s", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    took = time.monotonic() - sent
    print(f"SIGINT {sent - start:4.1f} s after start: exit {p.returncode}, "
          f"{took:.3f} s after the signal; stdout {len(out)} bytes; stderr:")
    for line in err.splitlines():
        print("    " + line)
