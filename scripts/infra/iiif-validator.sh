#!/usr/bin/env bash
# The official IIIF Image API validator (`iiif-validator` from PyPI) in a Python venv outside the
# clone (`${RDM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rdm}/iiif-validator-venv`), for the
# e2e spec that runs it at level 2 against the files service's image server
# (e2e/specs/files/iiif-validator.test.ts). `make iiif-validator` runs `install`, and so do
# `make test` / `make test-e2e`.
#
#   bash scripts/infra/iiif-validator.sh install        # venv + pip install iiif-validator when absent
#   bash scripts/infra/iiif-validator.sh status
#   bash scripts/infra/iiif-validator.sh bin             # path of iiif-validate.py
#   bash scripts/infra/iiif-validator.sh pattern <png>   # write the validator's test pattern
#
# The test pattern (`67352ccc-d1b0-11e1-89ae-279075081939.png`: 1000x1000, 10x10 squares of
# 100 px) is not shipped in the PyPI package (neither wheel nor sdist); `pattern` draws it from
# the colour table the installed validator checks against (`ValidationInfo().colorInfo[x][y]`
# is the square at column x, row y), with Pillow, a dependency of the validator.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION="${IIIF_VALIDATOR_VERSION:-1.0.5}"
CACHE_DIR="${RDM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rdm}"
VENV="$CACHE_DIR/iiif-validator-venv"
BIN="$VENV/bin/iiif-validate.py"

installed() { [ -x "$BIN" ] && "$VENV/bin/python" -c 'import iiif_validator, PIL' >/dev/null 2>&1; }

cmd_install() {
  installed && return 0
  command -v python3 >/dev/null 2>&1 || apt_install python3
  mkdir -p "$CACHE_DIR"
  if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
    apt_install python3-venv
    python3 -m venv "$VENV" || die "python3 -m venv $VENV failed"
  fi
  say "installing iiif-validator==$VERSION into $VENV"
  local log="$CACHE_DIR/iiif-validator-install.log"
  if ! "$VENV/bin/pip" install -q "iiif-validator==$VERSION" >"$log" 2>&1; then
    cat "$log" >&2
    die "pip install iiif-validator==$VERSION failed"
  fi
  installed || die "iiif-validator not usable after install ($VENV)"
}

cmd_status() {
  if installed; then echo "iiif-validator: $BIN"; return 0; fi
  echo "iiif-validator: not installed (bash scripts/infra/iiif-validator.sh install)"; return 1
}

cmd_bin() {
  installed || die "iiif-validator not installed (bash scripts/infra/iiif-validator.sh install)"
  echo "$BIN"
}

cmd_pattern() {
  local out="${1:?usage: $0 pattern <out.png>}"
  installed || die "iiif-validator not installed (bash scripts/infra/iiif-validator.sh install)"
  "$VENV/bin/python" - "$out" <<'PY'
import sys
from PIL import Image, ImageDraw
from iiif_validator.validator import ValidationInfo

colors = ValidationInfo().colorInfo
img = Image.new('RGB', (1000, 1000))
draw = ImageDraw.Draw(img)
for x in range(10):
    for y in range(10):
        draw.rectangle([x * 100, y * 100, x * 100 + 99, y * 100 + 99], fill=tuple(colors[x][y]))
img.save(sys.argv[1], 'PNG')
PY
}

case "${1:-}" in
  install) cmd_install ;;
  status) cmd_status ;;
  bin) cmd_bin ;;
  pattern) shift; cmd_pattern "$@" ;;
  *) echo "usage: $0 {install|status|bin|pattern <out.png>}" >&2; exit 2 ;;
esac
