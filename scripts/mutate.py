#!/usr/bin/env python3
"""The mutation check: does some test fail when a behaviour that matters
breaks?

scripts/mutations.json lists small breaking edits, each an exact text in
one file, what it becomes, and the tests that must catch it. For each, this
copies the tracked tree once into a temporary folder, applies the edit
there (never in the checkout), runs the named tests and requires them to
fail; then puts the file back. It prints one line per edit and the score,
and exits 1 if any edit survived (no test failed) or no longer applies (its
text is not in the file exactly once: the edit must follow the code).

    python3 scripts/mutate.py            # every edit
    python3 scripts/mutate.py triad nan  # those whose names contain a word

Run it from the repository root, after scripts/test.sh has set the machine
up (it uses the same Vulkan device and validation layer).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "scripts", "mutations.json")) as f:
        mutations = json.load(f)
    if argv:
        mutations = [m for m in mutations if any(w in m["name"] for w in argv)]
        if not mutations:
            print(f"mutate.py: no edit's name contains {' or '.join(argv)}", file=sys.stderr)
            return 2
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                           capture_output=True).stdout.decode().split("\0")
    env = dict(os.environ, VKBENCH_VALIDATION="1", VKBENCH_REQUIRE_VALIDATION="1")
    caught, problems = 0, []
    with tempfile.TemporaryDirectory(prefix="vkbench-mutate-") as tree:
        for name in files:
            if not name:
                continue
            dst = os.path.join(tree, name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.isfile(os.path.join(root, name)):
                shutil.copy2(os.path.join(root, name), dst)
        # bin/tools (the newer glslc) is not tracked; tests that need it
        # find it through the module's bin/.
        tools = os.path.join(root, "bin", "tools")
        if os.path.isdir(tools):
            os.makedirs(os.path.join(tree, "bin"), exist_ok=True)
            os.symlink(tools, os.path.join(tree, "bin", "tools"))
        for m in mutations:
            path = os.path.join(tree, m["file"])
            with open(path) as f:
                text = f.read()
            if text.count(m["from"]) != 1:
                problems.append(f"{m['name']}: its text is in {m['file']} {text.count(m['from'])} times, want once")
                print(f"STALE     {m['name']}", flush=True)
                continue
            with open(path, "w") as f:
                f.write(text.replace(m["from"], m["to"]))
            start = time.monotonic()
            try:
                r = subprocess.run(["go", "test", "-count=1"] + m["test"], cwd=tree, env=env,
                                   capture_output=True, text=True, timeout=900)
                # Caught means a test failed: a mutation that no longer
                # compiles, or a package that is not there, is caught by
                # nothing and says nothing of the tests.
                out = r.stdout + r.stderr
                failed = r.returncode != 0 and ("--- FAIL" in out or "panic:" in out)
                broken = r.returncode != 0 and not failed
            except subprocess.TimeoutExpired:
                failed, broken = True, False
            finally:
                with open(path, "w") as f:
                    f.write(text)
            took = time.monotonic() - start
            if broken:
                problems.append(f"{m['name']}: go test failed without a failing test (the edit does not compile, or a package is missing): {out.strip().splitlines()[-1] if out.strip() else ''}")
                print(f"NO-TEST   {m['name']} ({took:.0f} s)", flush=True)
            elif failed:
                caught += 1
                print(f"caught    {m['name']} ({took:.0f} s)", flush=True)
            else:
                problems.append(f"{m['name']}: no test failed ({' '.join(m['test'])}): {m['why']}")
                print(f"SURVIVED  {m['name']} ({took:.0f} s)", flush=True)
    print(f"\nmutation score: {caught} of {len(mutations)} caught")
    for p in problems:
        print("  " + p)
    return 0 if caught == len(mutations) else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        sys.exit(0)
    if any(a.startswith("-") for a in args):
        print(f"mutate.py: unknown option {next(a for a in args if a.startswith('-'))} (it takes words of edits' names; -h for help)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(args))
