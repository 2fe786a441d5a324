#!/usr/bin/env python3
"""The docs-claims check: what README.md and docs/ say is what runs.

1. Every `panelctl` command line in a code block of README.md or docs/*.md
   parses and validates (PANELCTL_PARSE_ONLY=1: nothing is run), and every
   `panelctl ...` fragment in running text names only commands and options
   that exist (PANELCTL_PARSE_ONLY=names).
2. Every claim in docs/claims.toml holds: its text is still in its document
   (whitespace and line breaks aside), and its check passes — a test that
   asserts it (the test must exist; `swift test` runs it), a command whose
   exit status and output are as claimed, or a file that says it.

    PANELCTL=.build/debug/panelctl python3 scripts/docs-claims.py
    python3 scripts/docs-claims.py --texts   # only texts, tests and files: nothing is run

Exit status 0 when everything holds; 1 with one line per failure.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANELCTL = os.environ.get("PANELCTL", os.path.join(ROOT, ".build/debug/panelctl"))
SHELL_STOPS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1"}

failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def documents():
    yield "README.md"
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            yield "docs/" + name


def command_words(line):
    """The words of a panelctl command line, up to the first shell operator."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    while words and words[0] in ("$", "sudo"):
        words = words[1:]
    if not words or not (words[0] == "panelctl" or words[0].endswith("/panelctl") or words[0] == '"$PANELCTL"'):
        return None
    out = []
    for w in words[1:]:
        if w in SHELL_STOPS or w.startswith(">") or w.startswith("2>"):
            break
        # A shell variable stands for a value of the reader's ($TOKEN).
        out.append(re.sub(r"^\$\{?([A-Z_]+)\}?$", r"PLACEHOLDER_\1", w))
    return out


def check_command_lines():
    checked = 0
    for doc in documents():
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        lines = text.split("\n")
        fenced = False
        shell = False
        pending = ""
        start = 0
        for number, raw in enumerate(lines, 1):
            if raw.lstrip().startswith("```"):
                info = raw.lstrip()[3:].strip()
                fenced = not fenced
                shell = fenced and info in ("", "sh", "bash", "console", "shell")
                pending = ""
                continue
            if fenced and shell:
                if not pending:
                    start = number
                pending += raw.rstrip()
                if pending.endswith("\\"):
                    pending = pending[:-1] + " "
                    continue
                words = command_words(pending)
                pending = ""
                if words is None:
                    continue
                checked += 1
                if any(w.startswith("[") or w.endswith("]") for w in words):
                    # A synopsis (`[--mode a|b]`): its words, each of the first alternative.
                    words = [w.strip("[]").split("|")[0] for w in words]
                    run_parse(f"{doc}:{start}", [w for w in words if w], "names")
                else:
                    run_parse(f"{doc}:{start}", words, "1")
            elif not fenced:
                for span in re.findall(r"`([^`]*)`", raw):
                    if not span.startswith("panelctl "):
                        continue
                    words = command_words(span)
                    if words:
                        checked += 1
                        run_parse(f"{doc}:{number}", words, "names")
    return checked


def run_parse(where, words, mode):
    env = dict(os.environ, PANELCTL_PARSE_ONLY=mode)
    r = subprocess.run([PANELCTL] + words, env=env, capture_output=True, text=True, cwd=ROOT, timeout=60)
    if r.returncode != 0:
        fail(where, f"panelctl {' '.join(words)}: {r.stderr.strip()}")


def normalised(s):
    s = re.sub(r"[`*_]", "", s)
    return " ".join(s.split())


def test_names():
    """Suite and test function names declared under Tests/."""
    names = set()
    for base, _, files in os.walk(os.path.join(ROOT, "Tests")):
        for f in files:
            if not f.endswith(".swift"):
                continue
            src = open(os.path.join(base, f), encoding="utf-8").read()
            suites = re.findall(r"(?:struct|extension|final class|class)\s+([A-Za-z_][A-Za-z0-9_]*)", src)
            names.update(suites)
            for suite in suites:
                names.add(suite)
            for m in re.finditer(r"@Test[^\n]*\n?\s*(?:[a-z ]*)?func\s+([A-Za-z_][A-Za-z0-9_]*)", src):
                for suite in suites:
                    names.add(f"{suite}.{m.group(1)}")
                names.add(m.group(1))
    for base, _, files in os.walk(os.path.join(ROOT, "Tests", "host")):
        for f in files:
            if f.endswith(".py"):
                src = open(os.path.join(base, f), encoding="utf-8").read()
                for cls in re.findall(r"^class\s+(\w+)", src, re.M):
                    names.add(cls)
                for fn in re.findall(r"^\s+def\s+(test\w+)", src, re.M):
                    names.add(fn)
    return names


def check_claims(run=True):
    path = os.path.join(ROOT, "docs", "claims.toml")
    with open(path, "rb") as f:
        claims = tomllib.load(f).get("claim", [])
    known = test_names()
    texts = {}
    for i, c in enumerate(claims, 1):
        where = f"docs/claims.toml claim {i} ({c.get('doc', '?')})"
        doc = c.get("doc")
        if doc not in texts:
            try:
                texts[doc] = normalised(open(os.path.join(ROOT, doc), encoding="utf-8").read())
            except OSError as e:
                fail(where, f"cannot read {doc}: {e.strerror}")
                continue
        if normalised(c["text"]) not in texts[doc]:
            fail(where, f"the claimed text is no longer in {doc}: {c['text'][:80]!r}")
        checks = 0
        for t in c.get("tests", []):
            checks += 1
            if t not in known:
                fail(where, f"no test {t!r} under Tests/ (the claim's check)")
        if "file" in c:
            checks += 1
            content = open(os.path.join(ROOT, c["file"]), encoding="utf-8").read()
            for needle in c.get("file_contains", []):
                if needle not in content:
                    fail(where, f"{c['file']} does not contain {needle!r}")
        if "run" in c:
            checks += 1
            if run:
                check_run(where, c)
        if checks == 0:
            fail(where, "no check (tests, file or run)")
    return len(claims)


def check_run(where, c):
    with tempfile.TemporaryDirectory() as tmp:
        words = [w.replace("$TMP", tmp) for w in c["run"]]
        r = subprocess.run([PANELCTL] + words, capture_output=True, text=True, cwd=ROOT, timeout=c.get("timeout", 600))
        if r.returncode != c.get("exit", 0):
            fail(where, f"panelctl {' '.join(words)}: exit {r.returncode}, claimed {c.get('exit', 0)}: {r.stderr.strip()[:300]}")
        for needle in c.get("stdout_contains", []):
            if needle not in r.stdout:
                fail(where, f"panelctl {' '.join(words)}: standard output lacks {needle!r}")
        for needle in c.get("stdout_lacks", []):
            if needle in r.stdout:
                fail(where, f"panelctl {' '.join(words)}: standard output has {needle!r}")
        for needle in c.get("stderr_contains", []):
            if needle not in r.stderr:
                fail(where, f"panelctl {' '.join(words)}: standard error lacks {needle!r}: {r.stderr.strip()[:300]}")
        if "max_output_mb" in c:
            size = 0
            for base, _, files in os.walk(tmp):
                size += sum(os.path.getsize(os.path.join(base, f)) for f in files)
            if size > c["max_output_mb"] * 1e6:
                fail(where, f"panelctl {' '.join(words)} wrote {size / 1e6:.0f} MB, claimed at most {c['max_output_mb']} MB")


def main():
    texts_only = "--texts" in sys.argv[1:]
    if not texts_only and not os.access(PANELCTL, os.X_OK):
        print(f"docs-claims: no panelctl at {PANELCTL} (build it, or set PANELCTL)", file=sys.stderr)
        return 1
    lines = 0 if texts_only else check_command_lines()
    claims = check_claims(run=not texts_only)
    for f in failures:
        print(f"docs-claims: {f}", file=sys.stderr)
    if failures:
        print(f"docs-claims: {len(failures)} problems ({lines} command lines, {claims} claims checked)", file=sys.stderr)
        return 1
    print(f"docs-claims: {lines} command lines parse, {claims} claims hold", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
