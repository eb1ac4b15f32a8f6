"""``check``'s outputs for CI (docs/design/check.md §Check): SARIF 2.1.0 for code scanning, and the
Markdown summary table GitHub shows on a workflow run's page (``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from agentmem.check.findings import CheckReport, Finding
from agentmem.check.rule_help import help_markdown, help_text

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The key of agentmem's own fingerprint in a result's ``partialFingerprints``.
FINGERPRINT = "agentmemFinding/v1"
_LINE_NUMBER = re.compile(r"\b(line|lines) \d+(?:[-–]\d+)?")


def fingerprint(f: Finding) -> str:
    """A hash of the finding's code, file, commit and message with its line numbers left out
    (``line 12`` → ``line``): the same finding after lines moved keeps it."""
    message = _LINE_NUMBER.sub(r"\1", f.message)
    key = "\0".join((f.code, f.path, f.commit or "", message))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def sarif(findings: list[Finding], version: str) -> dict[str, Any]:
    """One SARIF 2.1.0 log: one run of the ``agentmem`` driver, one rule per finding code (in
    order of first use), one result per finding with its level (error | warning), message,
    file and line (relative to the repository root, ``%SRCROOT%``; an absolute path as a
    ``file://`` URI), a stable fingerprint (:func:`fingerprint`) and, for history findings, the
    commit in ``properties.commit``. Each rule carries its help (docs/design/check.md §Check's row
    for the code: :mod:`agentmem.check.rule_help`)."""
    codes = list(dict.fromkeys(f.code for f in findings))
    rules = [
        {
            "id": code,
            "name": code,
            "shortDescription": {"text": f"agentmem check: {code}"},
            "help": {"text": help_text(code), "markdown": help_markdown(code)},
        }
        for code in codes
    ]
    results = []
    for f in findings:
        if Path(f.path).is_absolute():
            artifact: dict[str, Any] = {"uri": Path(f.path).as_uri()}
        else:
            artifact = {"uri": f.path, "uriBaseId": "%SRCROOT%"}
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": "error" if f.is_error else "warning",
            "message": {"text": f.message},
            "partialFingerprints": {FINGERPRINT: fingerprint(f)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact,
                        "region": {"startLine": max(1, f.line)},
                    }
                }
            ],
        }
        if f.commit:
            result["properties"] = {"commit": f.commit}
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "agentmem", "version": version, "rules": rules}},
                "results": results,
            }
        ],
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary_markdown(report: CheckReport, looked: str) -> str:
    """The job summary: a heading, the counts, and a table of the findings (severity, file,
    line, code, message), or a line saying the check is clean."""
    findings = report.sorted()
    errors, warnings = len(report.errors), len(report.warnings)
    lines = ["## agentmem check", ""]
    if not findings:
        lines += [f"Clean ({looked}).", ""]
        return "\n".join(lines)
    lines += [f"{errors} error(s), {warnings} warning(s) ({looked}).", ""]
    lines += ["| severity | file | line | code | message |", "|---|---|---|---|---|"]
    for f in findings:
        where = f"{f.path}" + (f" @ {f.commit[:12]}" if f.commit else "")
        lines.append(
            f"| {f.severity} | `{_cell(where)}` | {f.line} | `{_cell(f.code)}` | {_cell(f.message)} |"
        )
    return "\n".join(lines) + "\n"


def append_summary(path: Path, text: str) -> None:
    """Append to GitHub's summary file (GitHub gives each step its own file and reads it when
    the step ends; appending is its protocol). Raises OSError."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text + "\n")
