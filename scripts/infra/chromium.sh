#!/usr/bin/env bash
# Chromium (Debian's package): the browser of the landing pages' browser spec
# (e2e/specs/web/browser.test.ts, driven by playwright-core through its executable path; no
# browser is ever downloaded by a package).
#
#   bash scripts/infra/chromium.sh install   # apt-get install chromium when absent
#   bash scripts/infra/chromium.sh status
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd_install() {
  if ! command -v chromium >/dev/null 2>&1; then apt_install chromium; fi
  command -v chromium >/dev/null 2>&1 || die "chromium not found after install"
}

cmd_status() {
  if command -v chromium >/dev/null 2>&1; then echo "chromium: $(command -v chromium)"; return 0; fi
  echo "chromium: not installed"; return 1
}

case "${1:-}" in
  install) cmd_install ;;
  status) cmd_status ;;
  *) echo "usage: $0 {install|status}" >&2; exit 2 ;;
esac
