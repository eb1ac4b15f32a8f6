"""Secrets (provider keys and tokens, passwords, credentials in key=value pairs) and encoded
blobs, read on the raw text (docs/design.md §Guard). Only ``secret:entropy`` is a warning."""

from __future__ import annotations

import math
import re
from collections import Counter

from agentmem.guard.base import WARNING, Finding
from agentmem.guard.unicode import _Raw, _solid

# ----------------------------------------------------------------------------------------------
# Secrets and encoded blobs (raw text)
# ----------------------------------------------------------------------------------------------

# fmt: off
# (needles, code, label, value groups, pattern). Needles are tested on the raw text, or on its
# lower-case form when they are lower case and the pattern ignores case. Value groups: the first
# group that matched is the secret's span (masking keeps "password=" readable); () = whole match.
_SECRETS: list[tuple[tuple[str, ...], str, str, tuple[int, ...], re.Pattern[str]]] = [
    (("sk-ant-",), "anthropic", "Anthropic API key", (),
     re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}")),
    # The look-behind keeps "task-master-ai__…" (an MCP tool name) from reading as "sk-…".
    (("sk-",), "openai", "OpenAI API key", (),
     re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
                r"|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{32,}(?![A-Za-z0-9_-])")),
    (("AKIA", "ASIA", "ABIA", "ACCA"), "aws", "AWS access key id", (),
     re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])")),
    (("aws",), "aws", "AWS secret access key", (1,),
     re.compile(r"(?i)aws[^\n]{0,24}?(?:secret|private)[^\n]{0,24}?[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), "github", "GitHub token", (),
     re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"
                r"|\bgithub_pat_[A-Za-z0-9_]{22,255}")),
    (("glpat-",), "gitlab", "GitLab token", (), re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    (("xox", "hooks.slack.com"), "slack", "Slack token", (),
     re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"
                r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
    (("AIza",), "google", "Google API key", (), re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    (("eyJ",), "jwt", "JSON Web Token", (),
     re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    (("PRIVATE KEY",), "private-key", "private key block", (),
     re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END"
                r" [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?")),
    (("sk_live_", "sk_test_", "rk_live_", "rk_test_"), "stripe", "Stripe key", (),
     re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    (("hf_",), "huggingface", "Hugging Face token", (), re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    (("npm_",), "npm", "npm token", (), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (("passw", "passe", "passphrase", "mdp"), "password", "password", (1,),
     re.compile(r"(?i)(?<![a-z])(?:password|passwd|passphrase|mot[ _-]de[ _-]passe|mdp)\s*[:=]"
                r"\s*(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s\"',;]{4,})")),
    (("key", "token", "secret", "bearer"), "generic", "credential in a key=value pair", (1, 2),
     re.compile(r"(?i)(?<![a-z0-9])(?:api[_-]?key|apikey|api[_-]?token|access[_-]?token|auth[_-]?token"
                r"|secret[_-]?key|client[_-]?secret|private[_-]?token|secret|token)[\"']?\s*[:=]"
                r"\s*[\"']?([A-Za-z0-9_\-./+=~]{16,})|\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)")),
]
# fmt: on
_PLACEHOLDER_VALUE = re.compile(
    r"[\"']?(?:[$%{<\[]|[x*.•#_-]+[\"']?$|.*(?:example|your|changeme|redacted|dummy|placeholder"
    r"|environ|getenv|process\.env|secrets?\.|vault))",
    re.IGNORECASE,
)
_DOC_PLACEHOLDER = re.compile(r"[\w-]*?[_-][xX*.]{8,}")  # sk-ant-xxxxxxxx, ghp_********
_PROSE_PASSWORD = re.compile(r"[a-z]+")  # "mot de passe : voir le coffre" is prose
_LONG_RUN = re.compile(r"[0-9A-Za-z+/=_-]{40,}")
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/_.=-]{20,}")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{40,}={0,2}")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{65,}(?![0-9A-Fa-f])")
_LOWER_RUN = re.compile(r"[a-z]+")
# Object ids in model and tool transcripts (msg_01…, toolu_01…, req_011…): not secrets.
_API_OBJECT_ID = re.compile(
    r"(?:msg|toolu|srvtoolu|req|call|resp|fc|rs|chatcmpl|run|thread|asst|file|batch|evt)[_-]"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _mean_lower_run(s: str) -> float:
    """Mean length of lower-case runs: under 2.5 for random base64 (1 in 20 above, none above
    3.6 in 2,000 draws), over 3.6 for CamelCase identifiers and paths made of words."""
    runs = _LOWER_RUN.findall(s)
    return sum(map(len, runs)) / len(runs) if runs else 0.0


def _looks_random(s: str, min_entropy: float) -> bool:
    return (
        any(c.isdigit() for c in s)
        and any(c.isupper() for c in s)
        and any(c.islower() for c in s)
        and _mean_lower_run(s) <= 3.2
        and _entropy(s) >= min_entropy
    )


_SECRET_NEEDLES = [
    (
        bool(rx.flags & re.IGNORECASE),
        tuple(filter(_solid, needles)),
        tuple(n for n in needles if not _solid(n)),
    )
    for needles, _, _, _, rx in _SECRETS
]


def _secret_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    raw = raw or _Raw(text)
    out: list[Finding] = []
    for (icase, solid, spaced), (_, name, label, groups, rx) in zip(
        _SECRET_NEEDLES, _SECRETS, strict=True
    ):
        tokens = raw.tokens_lower if icase else raw.tokens
        if not any(n in tokens for n in solid) and not any(
            n in (text.lower() if icase else text) for n in spaced
        ):
            continue
        for m in rx.finditer(text):
            g = next((i for i in groups if m.group(i) is not None), 0)
            value = m.group(g)
            if name == "aws" and value.endswith(("EXAMPLE", "EXAMPLEKEY")):
                continue  # AWS's documented example keys
            if name in ("password", "generic"):
                bare = value.strip("\"'")
                if _PLACEHOLDER_VALUE.match(value) or (
                    name == "password" and _PROSE_PASSWORD.fullmatch(bare)
                ):
                    continue
                if name == "generic" and not (
                    any(c.isdigit() for c in bare) and any(c.isalpha() for c in bare)
                ):
                    continue
            elif _DOC_PLACEHOLDER.fullmatch(value):
                continue
            message = f"{label}: remove it (and revoke it if it is real)"
            out.append(Finding(f"secret:{name}", message, m.start(g), m.end(g)))
    return out


def _blob_findings(
    text: str, url_spans: list[tuple[int, int]], raw: _Raw | None = None
) -> list[Finding]:
    if (raw or _Raw(text)).longest_token() < 20:
        return []  # every run below holds no white space and is at least 20 characters long
    out: list[Finding] = []
    for run in _LONG_RUN.finditer(text):  # blobs and tokens live inside these runs only
        lo, hi = run.span()
        for m in _HEX_RUN.finditer(text, lo, hi):
            message = f"hex run of {len(m.group())} characters"
            out.append(Finding("encoded-blob", message, m.start(), m.end()))
        for m in _B64_RUN.finditer(text, lo, hi):
            if any(s <= m.start() and m.end() <= e for s, e in url_spans):
                continue  # an id in a link's path; query data is the link check's business
            if _looks_random(m.group().rstrip("="), 4.0):
                message = f"base64-like run of {len(m.group())} characters"
                out.append(Finding("encoded-blob", message, m.start(), m.end()))
    for m in _TOKEN.finditer(text):
        tok = m.group().rstrip(".=")
        if len(tok) < 20 or _UUID.fullmatch(tok) or _API_OBJECT_ID.match(tok):
            continue
        if any(s <= m.start() < e for s, e in url_spans):
            continue
        if _looks_random(tok, 3.7):
            message = f"random-looking token of {len(tok)} characters: remove it if it is a secret"
            out.append(Finding("secret:entropy", message, m.start(), m.start() + len(tok), WARNING))
    return out
