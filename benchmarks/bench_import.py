"""Import cost of `agentmem memory show` against `python -c "import typer, rich.console, yaml"`.

Issue 2: commands that need neither the model nor git history must not import the anthropic SDK
(1.6–1.9 s). Run: python benchmarks/bench_import.py [RUNS]. Prints medians in ms.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _time(cmd: list[str], cwd: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        root.mkdir()
        for args in (
            ["init", "-q"],
            ["config", "user.email", "bench@example.com"],
            ["config", "user.name", "Bench"],
        ):
            subprocess.run(["git", "-C", str(root), *args], check=True)
        subprocess.run(
            [sys.executable, "-m", "agentmem", "init", str(root)], check=True, capture_output=True
        )
        baseline = _time([sys.executable, "-c", "import typer, rich.console, yaml"], root, runs)
        show = _time([sys.executable, "-m", "agentmem", "memory", "show"], root, runs)
        sdk = _time([sys.executable, "-c", "import anthropic"], root, max(3, runs // 3))
    print(f"python -c 'import typer, rich.console, yaml' : {baseline:7.1f} ms (median of {runs})")
    print(
        f"agentmem memory show                         : {show:7.1f} ms  ({show / baseline:.2f}x)"
    )
    print(
        f"python -c 'import anthropic'                 : {sdk:7.1f} ms  (not paid by memory show)"
    )


if __name__ == "__main__":
    main()
