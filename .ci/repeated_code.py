#!/usr/bin/env python3
"""Checks the repository's repeated code with the tool library's `duplicates` command.

    python3 .ci/repeated_code.py [--max N] [--most N] [--seconds N]

`duplicates` lists the pairs of places that share six or more lines. Its README says it passes over
import lines, but it does not know the lines inside a Go `import ( ... )` block for import lines,
so any two files that import the same six packages in a row make a pair. This script copies the
files git tracks into a temporary folder, writes each Go import block there as one `import` line
per package (the copy only: the repository keeps gofmt's blocks; the block's `import (` and `)`
lines become blank, so the copy's lines are the repository's), runs `duplicates` over the copy and
prints its listing. Files git does not track are not read, nor generated Go files (a line
"// Code generated ... DO NOT EDIT." before the package clause, the convention go/ast.IsGenerated and
golangci-lint follow): their repetition is the generator's, checked in its own source. With --max N (default 30) it fails when there are more than N pairs,
or when the listing is not whole (cut by --most, or incomplete), as the count would then be low.
Without `duplicates` on PATH it says so and passes: the tool is on developers' machines, not on
every CI machine.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

IMPORT_OPEN = re.compile(r"^import\s*\(\s*(//.*|/\*.*\*/\s*)?$")
IMPORT_CLOSE = re.compile(r"^\)\s*(//.*|/\*.*\*/\s*)?$")
IMPORT_SPEC = re.compile(r'^([\w.]+\s+)?["`]')  # "p", name "p", _ "p", . "p"
GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$")


def generated(text):
    """Reports whether Go source carries the generated-code marker before its package clause."""
    for line in text.split("\n"):
        if line.startswith("package "):
            return False
        if GENERATED.match(line.rstrip("\r")):
            return True
    return False


def flatten_imports(text):
    """Writes each parenthesised import block of Go source as one import line per package.

    The block's opening and closing lines become blank and its comment lines stay as they are, so
    every line keeps its number. text is split at "\n" only: a CRLF file keeps its "\r"s, which
    duplicates folds with the other white space.
    """
    out, inside = [], False
    for line in text.split("\n"):
        s = line.strip()
        if not inside and IMPORT_OPEN.match(s):
            inside = True
            out.append("")
        elif inside and IMPORT_CLOSE.match(s):
            inside = False
            out.append("")
        elif inside and IMPORT_SPEC.match(s):
            out.append("import " + s)
        else:
            out.append(line)
    return "\n".join(out)


def copy_tree(dst):
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True, text=True)
    os.chdir(top.stdout.strip())  # git ls-files names the files below the working directory only
    files = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout
    for name in files.decode().split("\0"):
        if not name or not os.path.isfile(name) or os.path.islink(name):
            continue
        target = os.path.join(dst, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if name.endswith(".go"):
            with open(name, encoding="utf-8", errors="surrogateescape", newline="") as f:
                text = f.read()
            if generated(text):
                continue
            with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(flatten_imports(text))
        else:
            shutil.copyfile(name, target)


def main(argv):
    opts = {"--max": 30, "--most": 200, "--seconds": 300}
    args = iter(argv)
    for a in args:
        if a not in opts:
            print(f"usage: repeated_code.py [--max N] [--most N] [--seconds N]; unknown {a!r}")
            return 2
        opts[a] = int(next(args))
    if shutil.which("duplicates") is None:
        print("duplicates is not on PATH: repeated code NOT checked")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(tmp)
        res = subprocess.run(
            ["duplicates", "--repo", tmp, "--most", str(opts["--most"]), "--seconds", str(opts["--seconds"])],
            capture_output=True, text=True)
    listing = res.stdout.replace(tmp + "/", "")
    print(listing, end="")
    first = listing.split("\n", 1)[0]
    m = re.match(r"^(\d+) pairs? of places", first)
    pairs = int(m.group(1)) if m else (0 if first.startswith("no duplicates") else None)
    if pairs is None or res.returncode != 0:
        print(f"cannot read the listing of duplicates (exit {res.returncode}): {first!r}")
        return 1
    if re.search(r"^(incomplete:|\(\+\d+ more pairs\))", listing, re.M):
        print("the listing is not whole: raise --most or --seconds")
        return 1
    if pairs > opts["--max"]:
        print(f"{pairs} pairs of repeated code, more than the bound of {opts['--max']}")
        return 1
    print(f"{pairs} pairs of repeated code (bound {opts['--max']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
