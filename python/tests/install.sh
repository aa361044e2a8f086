#!/usr/bin/env bash
# python_install: `pip install` of python/ into a fresh virtual environment, from this build's C ABI
# library (KC_CAPI_LIBRARY), as a user installs the package; Debian's numpy, pytest and pytest-xdist
# are seen through --system-site-packages. Then the installed package must load its own library.
#   install.sh PYTHON VENV SOURCE LIBRARY WORK
set -euo pipefail
py=$1 venv=$2 src=$3 lib=$4 work=$5
rm -rf "$venv" "$work"
"$py" -m venv --system-site-packages --without-pip "$venv"
KC_CAPI_LIBRARY=$lib KC_PY_BUILD_BASE=$work \
  "$venv/bin/python" -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir --quiet "$src"
cd "$work"  # away from the source tree: the import must find the installed package
"$venv/bin/python" - <<'PY'
import importlib.metadata as md
import os

import numpy, pytest, xdist  # noqa: F401 - the test dependencies, each named if missing
import kernel_contract as kc
from kernel_contract import _lib

assert "KC_CAPI_LIBRARY" not in os.environ
path = _lib.library_path()
assert path.startswith(os.path.dirname(kc.__file__)), f"{path} is not inside the installed package"
_lib.lib()
plugins = [e.value for e in md.entry_points(group="pytest11") if e.name == "kernel_contract"]
assert plugins == ["kernel_contract.pytest_plugin"], plugins
print(f"installed kernel_contract at {os.path.dirname(kc.__file__)} with its library; pytest plugin registered")
PY
