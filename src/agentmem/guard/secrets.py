"""Secrets (provider keys and tokens, passwords, credentials in key=value pairs and in URLs) and
encoded blobs, read on the raw text (docs/design/guard.md §Guard). Every secret finding is an error: the guard
refuses, it never warns about a secret (docs/decisions/0028).

Provider patterns come from two sources. Ours (``_SECRETS``) cover the keys agentmem's users
meet most (Anthropic, OpenAI, AWS, GitHub, …). The ``_DETECT_SECRETS`` table holds the
patterns of the maintained detector ``detect-secrets`` (Yelp, Apache-2.0), copied verbatim
from its plugins' ``denylist`` at version 1.5.0 and wrapped in token boundaries: Azure storage
keys, credentials in a URL (``postgres://user:pass@host``), Discord, Telegram, Twilio,
Mailchimp, SendGrid, Square, PyPI, IBM, SoftLayer, Cloudant and the GitLab token family.
Importing the library itself loads ``requests``, too much for the hooks
that run the guard, so the patterns are data here and ``tests/guard/test_secrets.py`` checks
them against the installed library: an upgrade that changes a pattern fails that test.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from agentmem.guard.base import Finding
from agentmem.guard.unicode import _Raw, _solid, _visible_positions
from agentmem.lazyre import ignores_case, lazy_compile

# ----------------------------------------------------------------------------------------------
# Secrets and encoded blobs (raw text)
# ----------------------------------------------------------------------------------------------

# fmt: off
# (needles, code, label, value groups, pattern). Needles are tested on the raw text, or on its
# lower-case form when they are lower case and the pattern ignores case. Value groups: the first
# group that matched is the secret's span (masking keeps "password=" readable); () = whole match.
_SECRETS: list[tuple[tuple[str, ...], str, str, tuple[int, ...], re.Pattern[str]]] = [
    (("sk-ant-",), "anthropic", "Anthropic API key", (),
     lazy_compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}")),
    # The look-behind keeps "task-master-ai__…" (an MCP tool name) from reading as "sk-…".
    (("sk-",), "openai", "OpenAI API key", (),
     lazy_compile(r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
                r"|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{32,}(?![A-Za-z0-9_-])")),
    (("AKIA", "ASIA", "ABIA", "ACCA"), "aws", "AWS access key id", (),
     lazy_compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])")),
    (("aws",), "aws", "AWS secret access key", (1,),
     lazy_compile(r"(?i)aws[^\n]{0,24}?(?:secret|private)[^\n]{0,24}?[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), "github", "GitHub token", (),
     lazy_compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"
                r"|\bgithub_pat_[A-Za-z0-9_]{22,255}")),
    (("glpat-",), "gitlab", "GitLab token", (), lazy_compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    (("xox", "hooks.slack.com"), "slack", "Slack token", (),
     lazy_compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"
                r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
    (("AIza",), "google", "Google API key", (), lazy_compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    (("eyJ",), "jwt", "JSON Web Token", (),
     lazy_compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    (("PRIVATE KEY",), "private-key", "private key block", (),
     lazy_compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END"
                r" [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?")),
    (("sk_live_", "sk_test_", "rk_live_", "rk_test_"), "stripe", "Stripe key", (),
     lazy_compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    (("hf_",), "huggingface", "Hugging Face token", (), lazy_compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    (("npm_",), "npm", "npm token", (), lazy_compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (("AccountKey=", "SharedAccessKey="), "azure", "Azure storage or service bus key", (1,),
     lazy_compile(r"(?<![A-Za-z])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,}={0,2})")),
    (("passw", "passe", "passphrase", "mdp"), "password", "password", (1,),
     lazy_compile(r"(?i)(?<![a-z])(?:password|passwd|passphrase|mot[ _-]de[ _-]passe|mdp)\s*[:=]"
                r"\s*(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s\"',;]{4,})")),
    (("key", "token", "secret", "bearer"), "generic", "credential in a key=value pair", (1, 2),
     lazy_compile(r"(?i)(?<![a-z0-9])(?:api[_-]?key|apikey|api[_-]?token|access[_-]?token|auth[_-]?token"
                r"|secret[_-]?key|client[_-]?secret|private[_-]?token|secret|token)[\"']?\s*[:=]"
                r"\s*[\"']?([A-Za-z0-9_\-./+=~]{16,})|\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)")),
]
# fmt: on

# (plugin, code, label, needles, ignore case, shortest token, value group, pattern as in the
# plugin's denylist). A pattern runs when a needle occurs in the text's tokens (lower-cased
# tokens when it ignores case; no needles: always) and a token is at least that long. The
# patterns are wrapped in look-arounds (``_BOUNDED``) so a key inside a longer run is not cut.
_DS_BEFORE = r"(?<![A-Za-z0-9_-])"
_DS_AFTER = r"(?![A-Za-z0-9_-])"
_DS_DEFAULT = (_DS_BEFORE, _DS_AFTER)
_DS_BOUNDS = {
    "basic_auth": ("", ""),
    "npm": ("", ""),
    "private_key": ("", ""),
    "artifactory": ("", ""),
    "cloudant": ("", ""),
    "ibm_cloud_iam": ("", ""),
    "ibm_cos_hmac": ("", ""),
    "softlayer": ("", ""),
}
_GITLAB_NEEDLES = (
    "glpat-",
    "gldt-",
    "glft-",
    "glsoat-",
    "glrt-",
    "GR1348941",
    "glcbt-",
    "glimt-",
    "glptt-",
    "glagent-",
    "gloas-",
)
_KEY_WORDS = ("key", "pwd", "pw", "pass", "token")
_DETECT_SECRETS: list[tuple[str, str, str, tuple[str, ...], bool, int, int, str]] = [
    (
        "azure_storage_key",
        "azure",
        "Azure storage account key",
        ("AccountKey=",),
        False,
        99,
        0,
        r"AccountKey=[a-zA-Z0-9+\/=]{88}",
    ),
    (
        "basic_auth",
        "url-credentials",
        "password in a URL",
        ("://",),
        False,
        0,
        1,
        r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@",
    ),
    (
        "discord",
        "discord",
        "Discord bot token",
        (),
        False,
        59,
        0,
        r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",
    ),
    (
        "telegram_token",
        "telegram",
        "Telegram bot token",
        (":",),
        False,
        44,
        0,
        r"\d{8,10}:[0-9A-Za-z_-]{35}",
    ),
    ("twilio", "twilio", "Twilio account or key id", ("AC",), False, 34, 0, r"AC[a-z0-9]{32}"),
    ("twilio", "twilio", "Twilio account or key id", ("SK",), False, 34, 0, r"SK[a-z0-9]{32}"),
    (
        "mailchimp",
        "mailchimp",
        "Mailchimp API key",
        ("-us",),
        False,
        35,
        0,
        r"[0-9a-z]{32}-us[0-9]{1,2}",
    ),
    (
        "sendgrid",
        "sendgrid",
        "SendGrid API key",
        ("SG.",),
        False,
        69,
        0,
        r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}",
    ),
    (
        "square_oauth",
        "square",
        "Square OAuth secret",
        ("sq0csp-",),
        False,
        50,
        0,
        r"sq0csp-[0-9A-Za-z\\\-_]{43}",
    ),
    (
        "pypi_token",
        "pypi",
        "PyPI token",
        ("pypi-",),
        False,
        70,
        0,
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}",
    ),
    (
        "pypi_token",
        "pypi",
        "PyPI token",
        ("pypi-",),
        False,
        70,
        0,
        r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        20,
        0,
        r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        20,
        0,
        r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        20,
        0,
        r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        25,
        0,
        r"glimt-[A-Za-z0-9_\-]{25}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        40,
        0,
        r"glptt-[A-Za-z0-9_\-]{40}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        50,
        0,
        r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)",
    ),
    (
        "gitlab_token",
        "gitlab",
        "GitLab token",
        _GITLAB_NEEDLES,
        False,
        64,
        0,
        r"gloas-[A-Za-z0-9_\-]{64}(?!\w)",
    ),
    (
        "slack",
        "slack",
        "Slack token",
        ("xox",),
        True,
        10,
        0,
        r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+",
    ),
    (
        "openai",
        "openai",
        "OpenAI API key",
        ("T3BlbkFJ",),
        False,
        48,
        0,
        r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}",
    ),
    (
        "npm",
        "npm",
        "npm token",
        ("_authToken",),
        False,
        0,
        1,
        r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*",
    ),
    (
        "artifactory",
        "artifactory",
        "Artifactory credentials",
        ("AKC",),
        False,
        13,
        0,
        r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)',
    ),
    (
        "private_key",
        "private-key",
        "private key block",
        ("SSH2",),
        False,
        0,
        0,
        r"BEGIN SSH2 ENCRYPTED PRIVATE KEY",
    ),
    (
        "private_key",
        "private-key",
        "private key file",
        ("PuTTY-User-Key-File-2",),
        False,
        0,
        0,
        r"PuTTY-User-Key-File-2",
    ),
    (
        "ibm_cloud_iam",
        "ibm",
        "IBM Cloud IAM key",
        _KEY_WORDS,
        True,
        44,
        1,
        r"(?:(?<=\W)|(?<=^))(?:\[|)(?:\"|'|)(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:\"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:\"|'|)([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-]))(?:\"|'|)",
    ),
    (
        "ibm_cos_hmac",
        "ibm",
        "IBM COS HMAC secret",
        ("secret",),
        True,
        48,
        1,
        r"(?:(?<=\W)|(?<=^))(?:\[|)(?:\"|'|)(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret[-_]?(?:access)?[-_]?key)(?:\"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:\"|'|)([a-f0-9]{48}(?![a-f0-9]))(?:\"|'|)",
    ),
    (
        "softlayer",
        "softlayer",
        "SoftLayer credentials",
        ("softlayer", "sl"),
        True,
        64,
        1,
        r"(?:(?<=\W)|(?<=^))(?:\[|)(?:\"|'|)(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:\"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:\"|'|)([a-z0-9]{64})(?:\"|'|)",
    ),
    (
        "softlayer",
        "softlayer",
        "SoftLayer credentials",
        ("softlayer",),
        True,
        64,
        1,
        r"(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})",
    ),
    (
        "cloudant",
        "cloudant",
        "Cloudant credentials",
        ("cl",),
        True,
        24,
        1,
        r"(?:(?<=\W)|(?<=^))(?:\[|)(?:\"|'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:\"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:\"|'|)([0-9a-f]{64})(?:\"|'|)",
    ),
    (
        "cloudant",
        "cloudant",
        "Cloudant credentials",
        ("cl",),
        True,
        24,
        1,
        r"(?:(?<=\W)|(?<=^))(?:\[|)(?:\"|'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:\"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:\"|'|)([a-z]{24})(?:\"|'|)",
    ),
    (
        "cloudant",
        "cloudant",
        "Cloudant credentials",
        ("cloudant",),
        True,
        24,
        1,
        r"(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com",
    ),
    (
        "cloudant",
        "cloudant",
        "Cloudant credentials",
        ("cloudant",),
        True,
        24,
        1,
        r"(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com",
    ),
]
_DS_COMPILED: list[re.Pattern[str] | None] = [None] * len(_DETECT_SECRETS)  # on first use


def _ds_pattern(index: int) -> re.Pattern[str]:
    """The wrapped, compiled pattern of ``_DETECT_SECRETS[index]`` (compiled when a text first
    holds its needles: compiling them all would be paid by every hook otherwise)."""
    compiled = _DS_COMPILED[index]
    if compiled is None:
        plugin, _, _, _, icase, _, _, pattern = _DETECT_SECRETS[index]
        before, after = _DS_BOUNDS.get(plugin, _DS_DEFAULT)
        compiled = re.compile(f"{before}(?:{pattern}){after}", re.IGNORECASE if icase else 0)
        _DS_COMPILED[index] = compiled
    return compiled


# A URL's password that documentation puts there: postgres://user:password@localhost.
_URL_PLACEHOLDER = lazy_compile(
    r"(?i)(?:pass(?:word|wd)?|pwd|secret|token|changeme|x+|\*+|\.+|[${<%\[].*|.*(?:\.\.\.|…).*)"
)
_PLACEHOLDER_VALUE = lazy_compile(
    r"[\"']?(?:[$%{<\[]|[x*.•#_-]+[\"']?$|.*(?:example|your|changeme|redacted|dummy|placeholder"
    r"|environ|getenv|process\.env|secrets?\.|vault))",
    re.IGNORECASE,
)
_DOC_PLACEHOLDER = lazy_compile(r"[\w-]*?[_-][xX*.]{8,}")  # sk-ant-xxxxxxxx, ghp_********
_PROSE_PASSWORD = lazy_compile(r"[a-z]+")  # "mot de passe : voir le coffre" is prose
_LONG_RUN = lazy_compile(r"[0-9A-Za-z+/=_-]{40,}")
_TOKEN = lazy_compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/_.=-]{20,}")
_B64_RUN = lazy_compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{40,}={0,2}")
_HEX_RUN = lazy_compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{65,}(?![0-9A-Fa-f])")
_LOWER_RUN = lazy_compile(r"[a-z]+")
# Object ids in model and tool transcripts (msg_01…, toolu_01…, req_011…): not secrets.
_API_OBJECT_ID = lazy_compile(
    r"(?:msg|toolu|srvtoolu|req|call|resp|fc|rs|chatcmpl|run|thread|asst|file|batch|evt)[_-]"
)
_UUID = lazy_compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


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
        ignores_case(rx),
        tuple(filter(_solid, needles)),
        tuple(n for n in needles if not _solid(n)),
    )
    for needles, _, _, _, rx in _SECRETS
]


def _secret_needle_index() -> tuple[dict[tuple[bool, str], tuple[int, ...]], ...]:
    """``(ignores case, needle)`` -> the indexes of the patterns of :data:`_SECRETS` it lets
    run: for the solid needles (looked up in the tokens), and for the others (in the text)."""
    solid: dict[tuple[bool, str], list[int]] = {}
    spaced: dict[tuple[bool, str], list[int]] = {}
    for i, (icase, solids, others) in enumerate(_SECRET_NEEDLES):
        for n in solids:
            solid.setdefault((icase, n), []).append(i)
        for n in others:
            spaced.setdefault((icase, n), []).append(i)
    return tuple({key: tuple(v) for key, v in d.items()} for d in (solid, spaced))


_BY_SOLID, _BY_SPACED = _secret_needle_index()


def _secret_patterns_to_run(text: str, raw: _Raw) -> list[int]:
    """The indexes of the patterns of :data:`_SECRETS` one of whose needles occurs, in order:
    each needle looked up once, not once per pattern (tests/guard/test_secrets.py compares it
    with asking every pattern)."""
    runs: set[int] = set()
    tokens = (raw.tokens, raw.tokens_lower)
    for (icase, n), indexes in _BY_SOLID.items():
        if n in tokens[icase]:
            runs.update(indexes)
    if _BY_SPACED:
        spaced = (text, text.lower())
        for (icase, n), indexes in _BY_SPACED.items():
            if n in spaced[icase]:
                runs.update(indexes)
    return sorted(runs)


def _secret_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    """Secret findings on the raw text, and on its copy without invisible characters (a
    zero-width joiner inside ``sk-ant-…`` must not hide the key); spans point into ``text``."""
    raw = raw or _Raw(text)
    out = _plain_secret_findings(text, raw)
    keep = _visible_positions(text, raw)
    if keep is None:
        return out
    copy = "".join(text[i] for i in keep)
    for f in _plain_secret_findings(copy, _Raw(copy)):
        start, end = keep[f.start], keep[f.end - 1] + 1 if f.end > f.start else keep[f.start]
        if not any(o.code == f.code and o.start < end and start < o.end for o in out):
            out.append(Finding(f.code, f.message, start, end, f.severity))
    return out


def _plain_secret_findings(text: str, raw: _Raw) -> list[Finding]:
    out: list[Finding] = []
    for i in _secret_patterns_to_run(text, raw):
        _, name, label, groups, rx = _SECRETS[i]
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
    out += _detect_secrets_findings(text, raw)
    return out


def _detect_secrets_findings(text: str, raw: _Raw) -> list[Finding]:
    out: list[Finding] = []
    longest = raw.longest_token()
    both = (raw.tokens, raw.tokens_lower)
    for index, (_, name, label, needles, icase, shortest, group, _) in enumerate(_DETECT_SECRETS):
        if longest < shortest:
            continue
        tokens = both[icase]
        if needles and not any((n.lower() if icase else n) in tokens for n in needles):
            continue
        for m in _ds_pattern(index).finditer(text):
            g = group if m.group(group) is not None else 0
            value = m.group(g)
            if name == "url-credentials" and (
                _URL_PLACEHOLDER.fullmatch(value) or _PLACEHOLDER_VALUE.match(value)
            ):
                continue
            if _DOC_PLACEHOLDER.fullmatch(value.strip()):
                continue
            message = f"{label}: remove it (and revoke it if it is real)"
            out.append(Finding(f"secret:{name}", message, m.start(g), m.end(g)))
    return out


_BRAILLE = lazy_compile(r"[\u2800-\u28ff](?:[ \u00a0]?[\u2800-\u28ff]){5,}")


def _braille_findings(text: str) -> list[Finding]:
    """A run of six or more Braille patterns (spaces between words allowed): Braille ASCII
    spells any text, which the other rules cannot read (docs/design/guard.md §Guard)."""
    return [
        Finding("encoded-blob", f"run of {len(m.group())} Braille patterns", m.start(), m.end())
        for m in _BRAILLE.finditer(text)
    ]


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
            out.append(Finding("secret:entropy", message, m.start(), m.start() + len(tok)))
    return out
