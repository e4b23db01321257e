#!/usr/bin/env bash
# Everything a kind cluster of this project is made of, built on this machine (no image registry)
# and cached by version: `make kind-up` runs it first; run it alone to prepare a machine.
#
#   bash scripts/kind/build.sh [node|ingress|all]   # default all; prints the node image tag last
#
# `node` = what the cluster itself needs (steps 1-4 without Traefik); `ingress` = Traefik and its
# image (scripts/kind/up.sh builds it after creating the cluster, so the two overlap nothing but
# a cold Traefik compile no longer delays the cluster).
#
# Steps (each skipped when its result for the same versions/inputs exists):
#   1. the Go programs (scripts/kind/build-bins.sh -> $RDM_KIND_DIR/<component>-<version>/bin);
#   2. the project's Debian minbase (scripts/images.sh base);
#   3. images, each labelled with the sha256 of what it is made from (org.rdm.kind.key):
#      the kind base image (rdm-kind-base), kube-apiserver/-controller-manager/-scheduler/-proxy,
#      etcd, CoreDNS, pause, local-path-provisioner (+ helper), a kindnetd placeholder, Traefik;
#   4. kind's `--type file` Kubernetes tarball (kube-proxy.tar also carries every other image, with
#      `repositories` first, so `kind build node-image` sees them as built and pulls nothing) and
#      the node image rdm-kind-node:<k8s version> (`kind build node-image`, through shim/docker).
# Cold on 2 cores: ~40 min (Go compilation); everything cached: a few seconds.
# Env: RDM_KIND_DIR (/var/lib/rdm-kind), versions in scripts/kind/versions.sh.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../infra/lib.sh"
source "$HERE/versions.sh"
DOCKER_HOST="${DOCKER_HOST:-$(bash "$INFRA_DIR/docker.sh" host)}"
export DOCKER_HOST
STAGE="$RDM_KIND_DIR/stage"
LOGS="$RDM_KIND_DIR/logs"
mkdir -p "$STAGE" "$LOGS"
BASE_IMAGE="${BASE_IMAGE:-rdm-debian:bookworm}"
NODE_IMAGE="rdm-kind-node:$K8S_VERSION"
BASE_KIND_IMAGE="rdm-kind-base:$KIND_VERSION-containerd-$CONTAINERD_VERSION"
TRAEFIK_IMAGE="rdm-traefik:$TRAEFIK_VERSION"
ETCD_TAG="registry.k8s.io/etcd:${ETCD_VERSION#v}-0"
COREDNS_TAG="registry.k8s.io/coredns/coredns:$COREDNS_VERSION"
bin_dir() { echo "$RDM_KIND_DIR/$1/bin"; }

hash_of() { sha256sum | cut -c1-64; }
tree_hash() { (cd "$1" && find . \( -type f -o -type l \) | LC_ALL=C sort | while IFS= read -r f; do
  printf '%s %s ' "$f" "$(stat -c %a "$f")"; if [ -L "$f" ]; then readlink "$f"; else sha256sum <"$f" | cut -c1-64; fi
done) | hash_of; }
key_of() { docker image inspect --format '{{ index .Config.Labels "org.rdm.kind.key" }}' "$1" 2>/dev/null || true; }
id_of() { docker image inspect --format '{{ .Id }}' "$1" 2>/dev/null || true; }

# build_image <tag> <context dir> [build args...]: docker build unless the key is unchanged.
# The key covers the context (Dockerfile included), the build args and the ids of the FROM images.
build_image() {
  local tag="$1" ctx="$2"; shift 2
  local key froms log t0=$SECONDS
  froms="$(sed -nE 's/^FROM ([^ ]+).*/\1/p' "$ctx/Dockerfile" | sed "s#\${BASE_IMAGE}#$BASE_IMAGE#" | while read -r f; do
    [ "$f" = scratch ] || id_of "$f"; done)"
  key="$( { echo "v1 $* $froms"; tree_hash "$ctx"; } | hash_of)"
  if [ "$(key_of "$tag")" = "$key" ]; then note "$tag cached"; return 0; fi
  log="$LOGS/$(echo "$tag" | tr ':/' '__').log"
  say "image $tag: building (log $log)"
  docker build --network=host --force-rm --build-arg "BASE_IMAGE=$BASE_IMAGE" "$@" --label "org.rdm.kind.key=$key" \
    -t "$tag" "$ctx" >"$log" 2>&1 || { show_log "$log"; die "image $tag: docker build failed (log $log)"; }
  echo "$(date -u +%FT%TZ) image $tag $((SECONDS - t0))s" >>"$RDM_KIND_DIR/times.txt"
}

# stage_dir <name>: an empty staging context.
stage_dir() { local d="$STAGE/$1"; rm -rf "$d"; mkdir -p "$d"; echo "$d"; }

# A static binary FROM scratch with the given entrypoint path.
scratch_image() { # scratch_image <tag> <binary> <path in image> [USER]
  local ctx; ctx="$(stage_dir "$(echo "$1" | tr ':/' '__')")"
  cp "$2" "$ctx/$(basename "$3")"
  { echo 'FROM scratch'; echo 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    echo "COPY $(basename "$3") $3"; [ -n "${4:-}" ] && echo "USER $4"; echo "ENTRYPOINT [\"$3\"]"; } >"$ctx/Dockerfile"
  build_image "$1" "$ctx"
}

# Binaries on the Debian minbase (+ Debian packages).
debian_image() { # debian_image <tag> "<packages>" [binary ...]
  local tag="$1" pkgs="$2" ctx; shift 2
  ctx="$(stage_dir "$(echo "$tag" | tr ':/' '__')")"
  mkdir -p "$ctx/bin"; for b in "$@"; do cp "$b" "$ctx/bin/"; done
  {
    echo 'ARG BASE_IMAGE'; echo 'FROM ${BASE_IMAGE}'
    [ -n "$pkgs" ] && echo "RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs && rm -rf /var/lib/apt/lists/*"
    echo 'COPY bin/ /usr/local/bin/'
  } >"$ctx/Dockerfile"
  build_image "$tag" "$ctx"
}

PART="${1:-all}"
case "$PART" in node | ingress | all) ;; *) die "usage: build.sh [node|ingress|all]" ;; esac
t_start=$SECONDS
if [ "$PART" = ingress ]; then
  bash "$HERE/build-bins.sh" traefik
  scratch_image "$TRAEFIK_IMAGE" "$(bin_dir "traefik-$TRAEFIK_VERSION")/traefik" /traefik
  say "Traefik built or cached in $((SECONDS - t_start)) s"
  echo "$TRAEFIK_IMAGE"
  exit 0
fi
# ---- 1. binaries, 2. Debian minbase
bash "$HERE/build-bins.sh" kind k8s etcd containerd coredns local-path
(cd "$REPO_ROOT" && bash scripts/images.sh base) >"$LOGS/images-base.log" 2>&1 || { show_log "$LOGS/images-base.log"; die "scripts/images.sh base failed"; }

K8S_BIN="$(bin_dir "kubernetes-$K8S_VERSION")"
kind_bin="$(bin_dir "kind-$KIND_VERSION")/kind"

# ---- 3. images
kind_src="$(cd / && go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')"
ctx="$(stage_dir kind-base)"
cp -a "$HERE/images/base/." "$ctx/"
cp -a "$kind_src/images/base/files" "$ctx/files"; chmod -R u+w "$ctx/files"
cp "$(bin_dir "containerd-$CONTAINERD_VERSION")"/{containerd,ctr,containerd-shim-runc-v2} "$ctx/"
build_image "$BASE_KIND_IMAGE" "$ctx"

for b in kube-apiserver kube-controller-manager kube-scheduler; do
  debian_image "registry.k8s.io/$b:$K8S_VERSION" "" "$K8S_BIN/$b"
done
debian_image "registry.k8s.io/kube-proxy:$K8S_VERSION" "iptables nftables conntrack ipset kmod" "$K8S_BIN/kube-proxy"
debian_image "$ETCD_TAG" "" "$(bin_dir "etcd-$ETCD_VERSION")/etcd"
scratch_image "$COREDNS_TAG" "$(bin_dir "coredns-$COREDNS_VERSION")/coredns" /coredns
scratch_image "registry.k8s.io/pause:$PAUSE_TAG" "$K8S_BIN/pause" /pause 65535:65535
docker tag "registry.k8s.io/pause:$PAUSE_TAG" registry.k8s.io/pause:3.10   # containerd's sandbox_image
scratch_image "$KIND_LOCAL_PATH_TAG" "$(bin_dir "local-path-provisioner-$LOCAL_PATH_VERSION")/local-path-provisioner" /usr/local/bin/local-path-provisioner
# The helper runs `sh` scripts (mkdir/rm) and kindnetd is never started (disableDefaultCNI):
# both are the minbase under the tags kind expects.
debian_image "$KIND_LOCAL_PATH_HELPER_TAG" ""
debian_image "$KIND_KINDNETD_TAG" ""

# ---- 4. tarball + node image, keyed by kind, the base and every packed image
packed=("registry.k8s.io/kube-proxy:$K8S_VERSION" "$ETCD_TAG" "$COREDNS_TAG" "registry.k8s.io/pause:$PAUSE_TAG" registry.k8s.io/pause:3.10
  "$KIND_KINDNETD_TAG" "$KIND_LOCAL_PATH_TAG" "$KIND_LOCAL_PATH_HELPER_TAG")
node_key="$( {
  echo "v1 $KIND_VERSION $K8S_VERSION $(id_of "$BASE_KIND_IMAGE")"; sha256sum "$K8S_BIN"/{kubeadm,kubelet,kubectl} "$HERE/reorder-tar.py"
  for i in kube-apiserver kube-controller-manager kube-scheduler; do id_of "registry.k8s.io/$i:$K8S_VERSION"; done
  for i in "${packed[@]}"; do echo "$i $(id_of "$i")"; done
} | hash_of)"
if [ "$(key_of "$NODE_IMAGE")" != "$node_key" ]; then
  t0=$SECONDS
  tb="$STAGE/tarball"; rm -rf "$tb"; B="$tb/kubernetes/server/bin"; mkdir -p "$B"
  echo "$K8S_VERSION" >"$tb/kubernetes/version"
  cp "$K8S_BIN"/{kubeadm,kubelet,kubectl} "$B/"
  for i in kube-apiserver kube-controller-manager kube-scheduler; do docker save -o "$B/$i.tar" "registry.k8s.io/$i:$K8S_VERSION"; done
  docker save -o "$B/kube-proxy.multi.tar" "${packed[@]}"
  python3 "$HERE/reorder-tar.py" "$B/kube-proxy.multi.tar" "$B/kube-proxy.tar" && rm "$B/kube-proxy.multi.tar"
  tgz="$STAGE/kubernetes-server-linux-amd64.tar.gz"
  if command -v pigz >/dev/null 2>&1; then tar -C "$tb" -c kubernetes | pigz -1 >"$tgz"; else tar -C "$tb" -c kubernetes | gzip -1 >"$tgz"; fi
  rm -rf "$tb"
  say "node image $NODE_IMAGE: kind build node-image (log $LOGS/node-image.log)"
  # kind cannot label the image it builds: the key goes on a one-line derived build of the same tag.
  PATH="$HERE/shim:$PATH" nice -n 19 "$kind_bin" build node-image --type file --base-image "$BASE_KIND_IMAGE" \
    --image "$NODE_IMAGE-unlabelled" "$tgz" >"$LOGS/node-image.log" 2>&1 || { show_log "$LOGS/node-image.log"; die "kind build node-image failed"; }
  printf 'FROM %s\nLABEL org.rdm.kind.key=%s\n' "$NODE_IMAGE-unlabelled" "$node_key" | docker build -q -t "$NODE_IMAGE" - >/dev/null
  docker rmi "$NODE_IMAGE-unlabelled" >/dev/null
  rm -f "$tgz"
  echo "$(date -u +%FT%TZ) node-image $NODE_IMAGE $((SECONDS - t0))s" >>"$RDM_KIND_DIR/times.txt"
fi
if [ "$PART" = all ]; then
  bash "$HERE/build-bins.sh" traefik
  scratch_image "$TRAEFIK_IMAGE" "$(bin_dir "traefik-$TRAEFIK_VERSION")/traefik" /traefik
fi
say "$PART built or cached in $((SECONDS - t_start)) s (times: $RDM_KIND_DIR/times.txt)"
echo "$NODE_IMAGE"
