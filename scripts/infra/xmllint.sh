#!/usr/bin/env bash
# xmllint (Debian's libxml2-utils): the XML Schema validator of the records service's export and
# OAI-PMH tests (services/records/src/export/xsd/).
#
#   bash scripts/infra/xmllint.sh install   # apt-get install libxml2-utils when xmllint is absent
#   bash scripts/infra/xmllint.sh status
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd_install() {
  if ! command -v xmllint >/dev/null 2>&1; then apt_install libxml2-utils; fi
  command -v xmllint >/dev/null 2>&1 || die "xmllint not found after install"
}

cmd_status() {
  if command -v xmllint >/dev/null 2>&1; then echo "xmllint: $(command -v xmllint)"; return 0; fi
  echo "xmllint: not installed"; return 1
}

case "${1:-}" in
  install) cmd_install ;;
  status) cmd_status ;;
  *) echo "usage: $0 {install|status}" >&2; exit 2 ;;
esac
