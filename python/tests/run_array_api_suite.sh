#!/usr/bin/env bash
# Runs the Python array API standard's conformance suite (data-apis/array-api-tests,
# version 2024.12) against the installed `ferrotensor` package, with the known failures
# of array-api-xfails.txt marked xfail.
#
#   python/tests/run_array_api_suite.sh [pytest args]     # e.g. --max-examples=100 -q
#
# The suite comes from $ARRAY_API_TESTS_DIR, else ../shared/array-api-tests beside the
# repository (see its SOURCE.md for the pinned commits). It is copied to a temporary
# directory first, so that Hypothesis' example database and pytest's caches stay out of
# it. Needs: pytest, hypothesis>=6.151, ndindex (requirements.txt of the suite).
# The python interpreter is $PYTHON (default python3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
suite="${ARRAY_API_TESTS_DIR:-$root/../shared/array-api-tests}"
if [ ! -d "$suite/array_api_tests" ]; then
  echo "array-api-tests not found at $suite: set ARRAY_API_TESTS_DIR to a checkout of" >&2
  echo "data-apis/array-api-tests (commit 55fcc601, with its array-api submodule)" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$suite"/. "$work"/
rm -rf "$work/.hypothesis" "$work/.pytest_cache"
cd "$work"
ARRAY_API_TESTS_MODULE=ferrotensor ARRAY_API_TESTS_VERSION=2024.12 \
  "${PYTHON:-python3}" -m pytest array_api_tests/ -p no:cacheprovider \
  --xfails-file "$here/array-api-xfails.txt" "$@"
