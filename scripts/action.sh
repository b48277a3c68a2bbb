#!/usr/bin/env bash
# The step of action.yml that runs the main job (tested locally with a fake GITHUB_*
# environment: tests/ecosystem/test_action.py). Reads:
#   VERIFIER_ACTION_RUNTIME  auto | none | sample | all   (auto: none for a fork's pull request)
#   VERIFIER_ACTION_OUT      the records' directory (default verification)
#   VERIFIER_ACTION_INSTALL  0: use the `verifier` on PATH instead of installing this checkout
# Writes exit-code, runtime and report to $GITHUB_OUTPUT; exits with verifier's code.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime="${VERIFIER_ACTION_RUNTIME:-auto}"
out="${VERIFIER_ACTION_OUT:-verification}"

case "$runtime" in
  auto|none|sample|all) ;;
  *) echo "::error title=verifier action::runtime must be auto, none, sample or all, not '$runtime'"
     exit 2 ;;
esac

if [ "$runtime" = auto ]; then
  runtime=all
  # a pull request whose head is another repository (a fork) is untrusted code
  if [ "${GITHUB_EVENT_NAME:-}" = pull_request ] || [ "${GITHUB_EVENT_NAME:-}" = pull_request_target ]; then
    head="$(python3 - "${GITHUB_EVENT_PATH:-}" <<'PY'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as fh:
        event = json.load(fh)
    print(event["pull_request"]["head"]["repo"]["full_name"])
except Exception:  # no event file or no head repository: treat it as a fork
    print("")
PY
)"
    if [ -z "$head" ] || [ "$head" != "${GITHUB_REPOSITORY:-}" ]; then
      runtime=none
      echo "verifier: pull request from ${head:-an unknown repository}: runtime checks off (--runtime none)"
    fi
  fi
fi

if [ "${VERIFIER_ACTION_INSTALL:-1}" != 0 ]; then
  python3 -m pip install --disable-pip-version-check -q "$here" || exit 2
fi

verifier verify --out "$out" --runtime "$runtime"
code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "exit-code=$code"; echo "runtime=$runtime"; echo "report=$out/verification.html"; } >> "$GITHUB_OUTPUT"
fi
exit $code
