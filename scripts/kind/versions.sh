# Versions of everything the kind cluster is built from (sourced by scripts/kind/*.sh).
# Use: change a version here and the next `make kind-up` builds that component again (the cache
# under $RDM_KIND_DIR is keyed by <component>-<version>); the old one stays until you delete it.
KIND_VERSION="${KIND_VERSION:-v0.33.0}"
K8S_VERSION="${K8S_VERSION:-v1.34.4}"          # stay on 1.34: 1.35+ refuses cgroup v1 by default
ETCD_VERSION="${ETCD_VERSION:-v3.6.5}"         # = `kubeadm config images list` of K8S_VERSION
COREDNS_VERSION="${COREDNS_VERSION:-v1.12.1}"  # idem
PAUSE_TAG="${PAUSE_TAG:-3.10.1}"               # idem; containerd's sandbox_image is 3.10 (both tagged)
CONTAINERD_VERSION="${CONTAINERD_VERSION:-v2.3.4}"
LOCAL_PATH_VERSION="${LOCAL_PATH_VERSION:-v0.0.30}"
# v3.6.12: the newest Traefik whose go.mod has no replace into a nested module (v3.7.x points
# github.com/traefik/traefik/dynamic/ext at ./pkg/config/dynamic/ext, which module zips leave out).
TRAEFIK_VERSION="${TRAEFIK_VERSION:-v3.6.12}"
# Tags kind v0.33.0 pins for its own images: packed as "built" so `kind build node-image` never pulls.
KIND_KINDNETD_TAG="docker.io/kindest/kindnetd:v20260820-69b56db7"
KIND_LOCAL_PATH_TAG="docker.io/kindest/local-path-provisioner:v20260820-69b56db7"
KIND_LOCAL_PATH_HELPER_TAG="docker.io/kindest/local-path-helper:v20260131-7181c60a"
RDM_KIND_DIR="${RDM_KIND_DIR:-/var/lib/rdm-kind}"
export GOPATH="$RDM_KIND_DIR/go" GOCACHE="$RDM_KIND_DIR/go/cache" GOFLAGS=-mod=mod GOWORK=off GOTOOLCHAIN=local
PATH="/usr/local/go/bin:$PATH"
