# Shared settings of the kind scripts (sourced by up.sh, down.sh, smoke.sh, pod-kill.sh): where
# kind/kubectl/helm come from, the cluster's name and kubeconfig, and `kind_` = kind with the
# project's docker shim first in PATH (scripts/kind/shim/docker; every kind call must use it).
KIND_DIR_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$KIND_DIR_SCRIPTS/../infra/lib.sh"
source "$KIND_DIR_SCRIPTS/versions.sh"
KIND_CLUSTER="${KIND_CLUSTER:-rdm}"
KIND_NAMESPACE="${KIND_NAMESPACE:-rdm}"
KIND_HOST="${KIND_HOST:-rdm.localtest.me}"
IMAGE="${IMAGE:-rdm:kind}"
HELM_TIMEOUT="${HELM_TIMEOUT:-15m}"
KIND_BIN="$RDM_KIND_DIR/kind-$KIND_VERSION/bin/kind"
KUBECTL_BIN="$RDM_KIND_DIR/kubernetes-$K8S_VERSION/bin/kubectl"
KUBECONFIG="${KIND_KUBECONFIG:-$RDM_KIND_DIR/kubeconfig-$KIND_CLUSTER}"
export KUBECONFIG
DOCKER_HOST="${DOCKER_HOST:-$(bash "$INFRA_DIR/docker.sh" host)}"
export DOCKER_HOST
kind_() { PATH="$KIND_DIR_SCRIPTS/shim:$PATH" "$KIND_BIN" "$@"; }
kubectl() { "$KUBECTL_BIN" "$@"; }
helm() { "$TOOLS_DIR/bin/helm" "$@"; }
cluster_exists() { [ -x "$KIND_BIN" ] && kind_ get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; }
# curl through the ingress: *.localtest.me is public DNS, unreachable here, so pin the host.
icurl() { curl --resolve "$KIND_HOST:80:127.0.0.1" "$@"; }
