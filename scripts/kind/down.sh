#!/usr/bin/env bash
# `make kind-down`: delete the kind cluster of `make kind-up` (its node container and kubeconfig).
# The builds and images cached by version stay ($RDM_KIND_DIR, the Docker engine's images), so the
# next `make kind-up` takes a minute or two, not forty.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
if cluster_exists; then
  kind_ delete cluster --name "$KIND_CLUSTER" --kubeconfig "$KUBECONFIG"
  rm -f "$KUBECONFIG"
  say "cluster $KIND_CLUSTER deleted"
else
  say "no kind cluster $KIND_CLUSTER"
fi
