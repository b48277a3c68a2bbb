#!/usr/bin/env bash
# Create .venv with Python >= 3.12 and install verifier into it (idempotent).
# Finds Python itself: $VERIFIER_PYTHON, then pyenv's 3.12/3.13/3.14, then PATH.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
extras="${1:-}"

ok_python() {  # prints the interpreter's path if it runs and is >= 3.12
  local p
  p="$(command -v "$1" 2>/dev/null)" || return 1
  "$p" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1 || return 1
  echo "$p"
}

find_python() {
  local cand
  if [ -n "${VERIFIER_PYTHON:-}" ]; then ok_python "$VERIFIER_PYTHON" && return 0
    echo "VERIFIER_PYTHON=$VERIFIER_PYTHON is not a Python >= 3.12" >&2; return 1; fi
  if command -v pyenv >/dev/null 2>&1; then
    local root; root="$(pyenv root)"
    for minor in 12 13 14; do
      for cand in $(pyenv versions --bare 2>/dev/null | grep -E "^3\.${minor}(\.[0-9]+)?$" | sort -V -r); do
        ok_python "$root/versions/$cand/bin/python3" && return 0
      done
    done
  fi
  for cand in python3.12 python3.13 python3.14 python3 python; do
    ok_python "$cand" && return 0
  done
  return 1
}

venv="$here/.venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3,12) else 1)' 2>/dev/null; then
  py="$(find_python)" || {
    echo "error: verifier needs Python >= 3.12 and none was found (tried \$VERIFIER_PYTHON, pyenv, PATH)." >&2
    echo "       Install one (e.g. 'pyenv install 3.12') or set VERIFIER_PYTHON=/path/to/python3.12." >&2
    exit 2; }
  echo "bootstrap: creating .venv with $py ($("$py" --version 2>&1))" >&2
  rm -rf "$venv"
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed-$(cat "$here/pyproject.toml" | sha1sum | cut -c1-12)${extras:+-$extras}"
if [ ! -f "$stamp" ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$here${extras:+[$extras]}"
  rm -f "$venv"/.installed-*
  touch "$stamp"
fi
