"""What the tests of real software against `hcasim serve` share (real_tools_test.py,
verbs_apps_test.py): one line per check, the failures kept, and ending a process by its PID."""
import os
import signal
import subprocess

FAILURES = []


def check(ok, what):
    """Prints 'ok   what' or 'FAIL what' and keeps the failures; returns ok."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)
    return ok


def stop(proc, sig=signal.SIGTERM, timeout=20):
    """Ends proc by its PID with sig, then SIGKILL after timeout seconds; returns its exit code."""
    if proc.poll() is None:
        os.kill(proc.pid, sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode
