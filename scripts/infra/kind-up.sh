#!/usr/bin/env bash
# `make kind-up`: a local Kubernetes cluster (kind) with every chart under charts/ installed.
#
# Only meaningful on a machine with a working Docker engine (kind runs its nodes as containers);
# elsewhere it explains why and exits 1. Steps:
#   1. kind and helm: used from PATH, else built into .tools/bin with `go install` (pinned below).
#   2. cluster `$KIND_CLUSTER` (rdm) created unless it exists.
#   3. images: every Dockerfile found (root `Dockerfile` -> rdm:dev, `services/<svc>/Dockerfile` ->
#      rdm-<svc>:dev) is built and loaded into the cluster with `kind load docker-image`.
#   4. each charts/<name>/ with a Chart.yaml: `helm dependency build` when it declares
#      dependencies that are not vendored, then `helm upgrade --install <name>` into namespace
#      `$KIND_NAMESPACE` (rdm), adding `-f charts/<name>/values-kind.yaml` when that file exists.
# Env: KIND_CLUSTER, KIND_NAMESPACE, HELM_TIMEOUT (10m), KIND_VERSION, HELM_VERSION.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KIND_CLUSTER="${KIND_CLUSTER:-rdm}"
KIND_NAMESPACE="${KIND_NAMESPACE:-rdm}"
HELM_TIMEOUT="${HELM_TIMEOUT:-10m}"
KIND_VERSION="${KIND_VERSION:-v0.27.0}"
HELM_VERSION="${HELM_VERSION:-v3.17.3}"
export PATH="$TOOLS_DIR/bin:$PATH"

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  cat >&2 <<EOF
make kind-up: no working Docker engine on this machine (\`docker info\` failed or docker is absent).
kind runs Kubernetes nodes as Docker containers, so a local cluster cannot be created here.
On a machine with Docker, \`make kind-up\` creates kind cluster '$KIND_CLUSTER' and helm-installs charts/*.
Without Docker, validate the charts offline instead (helm lint --strict / helm template).
EOF
  exit 1
fi

go_tool() { # go_tool <binary> <module@version>
  command -v "$1" >/dev/null 2>&1 && return 0
  local go; go="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$go" ] || die "$1 not found and no Go toolchain to build it (install $1, or Go >= 1.23)"
  say "building $2 into $TOOLS_DIR/bin"
  mkdir -p "$TOOLS_DIR/bin"
  (cd / && GOBIN="$TOOLS_DIR/bin" CGO_ENABLED=0 "$go" install "$2") || die "go install $2 failed"
}
go_tool kind "sigs.k8s.io/kind@$KIND_VERSION"
go_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
command -v kubectl >/dev/null 2>&1 || say "note: kubectl not found; helm talks to the cluster directly"

if ! kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  say "creating kind cluster $KIND_CLUSTER"
  kind create cluster --name "$KIND_CLUSTER" --wait 180s
fi
kubeconfig="$DATA_DIR/kind-$KIND_CLUSTER.kubeconfig"
kind get kubeconfig --name "$KIND_CLUSTER" >"$kubeconfig"
export KUBECONFIG="$kubeconfig"

cd "$REPO_ROOT"
build_load() { # build_load <context> <dockerfile> <image>
  say "building image $3"
  docker build -q -t "$3" -f "$2" "$1" >/dev/null || die "docker build $3 failed"
  kind load docker-image "$3" --name "$KIND_CLUSTER" >/dev/null || die "kind load $3 failed"
}
if [ -f Dockerfile ]; then build_load . Dockerfile rdm:dev; fi
for df in services/*/Dockerfile; do
  [ -f "$df" ] || continue
  svc="$(basename "$(dirname "$df")")"
  build_load . "$df" "rdm-$svc:dev"
done

found=0
for chart in charts/*/; do
  [ -f "$chart/Chart.yaml" ] || continue
  found=1
  name="$(basename "$chart")"
  if grep -q '^dependencies:' "$chart/Chart.yaml" && [ ! -d "$chart/charts" ]; then
    helm dependency build "$chart" >/dev/null || die "helm dependency build $chart failed"
  fi
  extra=()
  if [ -f "$chart/values-kind.yaml" ]; then extra=(-f "$chart/values-kind.yaml"); fi
  say "helm upgrade --install $name ($chart)"
  helm upgrade --install "$name" "$chart" --namespace "$KIND_NAMESPACE" --create-namespace \
    --wait --timeout "$HELM_TIMEOUT" "${extra[@]}" || die "helm install $name failed"
done
[ "$found" = 1 ] || die "no charts/*/Chart.yaml found"
echo "kind cluster '$KIND_CLUSTER' ready; KUBECONFIG=$kubeconfig"
