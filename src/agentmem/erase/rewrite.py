"""git-filter-repo driven by :class:`agentmem.erase.scrub.Scrubber` (docs/design/sync.md §Sync).

Run by ``agentmem erase --text`` as ``python -m agentmem.erase.rewrite -`` inside the fresh
mirror it rewrites, with the spec ``{"text": …, "renames": {old path: new path}}`` as JSON on
stdin (never a file: an erase killed mid-way must not leave the text on disk; ``SPEC``, a path,
is read for a run by hand). Every blob goes through ``Scrubber.file`` with
the path it is committed at (so an inbox file is rewritten as an inbox file), every path through
the rename map, every commit and tag message through ``Scrubber.message``. Commits keep their
place (``--prune-empty never``); authors and committers are kept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentmem.erase.scrub import Scrubber, rule_ids


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def run(spec_path: Path) -> None:
    # lazy: git-filter-repo is a heavy module only erase needs
    import git_filter_repo as fr

    raw = sys.stdin.read() if str(spec_path) == "-" else spec_path.read_text(encoding="utf-8")
    spec = json.loads(raw)
    renames: dict[str, str] = spec["renames"]
    scrubber = Scrubber(spec["text"], renames, rule_ids(renames))
    done: dict[tuple[bytes, str], bytes] = {}

    def file_info(filename: bytes, mode: bytes, blob_id: bytes, value: Any) -> tuple[Any, ...]:
        path = _decode(filename)
        new_path = _encode(scrubber.path(path))
        if mode == b"160000":  # a submodule: its id is a commit, not a blob
            return (new_path, mode, blob_id)
        key = (blob_id, path)
        if key not in done:
            data = value.get_contents_by_identifier(blob_id)
            text = _decode(data)
            new = (
                _encode(scrubber.file(path, text))
                if mode != b"120000"
                else _encode(scrubber.string(text, slug=True))
            )
            done[key] = blob_id if new == data else value.insert_file_with_contents(new)
        return (new_path, mode, done[key])

    def message(raw: bytes, _metadata: Any = None) -> bytes:
        return _encode(scrubber.message(_decode(raw)))

    args = fr.FilteringOptions.parse_args(
        ["--sensitive-data-removal", "--no-fetch", "--prune-empty", "never", "--quiet", "--force"]
    )
    fr.RepoFilter(args, file_info_callback=file_info, message_callback=message).run()


if __name__ == "__main__":
    run(Path(sys.argv[1]))
