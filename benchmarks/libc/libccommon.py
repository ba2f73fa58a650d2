"""Shared pieces of the libc corpus scripts (build-corpus, native-test, scripts/bench-libc).

The function specifications (parameters, what is an output, which inputs respect the C
standard's preconditions) live in `specs.py`; this module has paths, running commands and the
C-text helpers used by more than one script.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_CORPUS = HERE / "corpus"


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("DIZY_LIBC_CACHE", str(Path(base) / "dizy-libc")))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def on_path(tool):
    return any((Path(d) / tool).exists() for d in os.environ.get("PATH", "").split(os.pathsep))


def warn(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr)


def impl_name(path):
    """`corpus/strlen/newlib-fast.c` -> `newlib-fast`."""
    return Path(path).stem


def implementations(corpus, fn):
    d = Path(corpus) / fn
    return sorted(d.glob("*.c")) if d.is_dir() else []


def c_string_literal(bytes_):
    return '"' + "".join(f"\\{b:03o}" for b in bytes_) + '"'


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
