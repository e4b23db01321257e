#!/usr/bin/env bash
# Go (and one C) programs the kind cluster is made of, compiled here from the Go module proxy and
# cached by version in $RDM_KIND_DIR/<component>-<version>/bin (outside the clone: a fresh clone on
# the same machine reuses them). Called by scripts/kind/build.sh; use it alone to pre-build.
#
#   bash scripts/kind/build-bins.sh [component ...]   # default: all, in the order a cluster needs them
#
# A component is rebuilt only when its bin/ is missing (built into a temporary dir, then renamed,
# so an interrupted build leaves nothing that looks finished). Each build runs under `nice -n 19`.
# Times go to $RDM_KIND_DIR/times.txt. Cold on 2 cores: ~35 min, mostly Kubernetes; warm: < 1 s.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../infra/lib.sh"
source "$HERE/versions.sh"
mkdir -p "$RDM_KIND_DIR" "$GOPATH"
NICE=(nice -n 19)

# done_or_build <dir> <function>: run <function> <tmpdir> unless <dir>/bin exists; time it.
# Two runs at once (say, two `make kind-up`) take turns per component (flock on <dir>.lock).
done_or_build() {
  local dir="$RDM_KIND_DIR/$1" fn="$2" lk
  if [ -d "$dir/bin" ]; then note "$1 cached"; return 0; fi
  exec {lk}>"$dir.lock"
  flock "$lk"
  if [ -d "$dir/bin" ]; then exec {lk}>&-; note "$1 built meanwhile by another run"; return 0; fi
  local tmp="$dir.tmp.$$" t0=$SECONDS
  rm -rf "$tmp"; mkdir -p "$tmp/bin"
  say "building $1 (log $tmp.log)"
  if ! "$fn" "$tmp" >"$tmp.log" 2>&1; then show_log "$tmp.log"; die "building $1 failed (log $tmp.log)"; fi
  rm -rf "$dir"; mv "$tmp" "$dir"; mv "$tmp.log" "$dir/build.log"
  exec {lk}>&-
  echo "$(date -u +%FT%TZ) $1 $((SECONDS - t0))s" >>"$RDM_KIND_DIR/times.txt"
  say "built $1 in $((SECONDS - t0)) s"
}

# module_copy <module@version> <dest>: a writable copy of a module's source from the proxy.
module_copy() {
  local src
  src="$(cd / && go mod download -json "$1" | sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')"
  [ -n "$src" ] || return 1
  rm -rf "$2"; cp -r "$src" "$2"; chmod -R u+w "$2"
}

b_kind() { (cd / && GOBIN="$1/bin" CGO_ENABLED=0 "${NICE[@]}" go install "sigs.k8s.io/kind@$KIND_VERSION"); }

# Kubernetes: the k8s.io/kubernetes module, its ./staging replaces pointed at the published
# k8s.io/* v0.<minor>.<patch> modules, version stamped the way the release build does.
b_k8s() {
  local src="$1/src" v="$K8S_VERSION" staging="v0${K8S_VERSION#v1}" ldf="-s -w" p
  module_copy "k8s.io/kubernetes@$v" "$src"
  rm -rf "$src/go.work" "$src/go.work.sum" "$src/vendor"
  sed -i -E "s#(k8s.io/[a-z0-9-]+) => \./staging/src/k8s\.io/[a-z0-9-]+#\1 => \1 $staging#" "$src/go.mod"
  ! grep -q '=> ./staging' "$src/go.mod"
  local minor; minor="$(echo "$v" | cut -d. -f2)"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.gitTreeState=clean -X $p.buildDate=2026-01-01T00:00:00Z"
  done
  (cd "$src" && CGO_ENABLED=0 "${NICE[@]}" go build -trimpath -ldflags "$ldf" -o "$1/bin/" \
    ./cmd/kubeadm ./cmd/kubelet ./cmd/kube-apiserver ./cmd/kube-controller-manager \
    ./cmd/kube-scheduler ./cmd/kube-proxy ./cmd/kubectl)
  # pause: kubernetes' own C source, static.
  "${NICE[@]}" gcc -Os -static -DVERSION="$PAUSE_TAG" -o "$1/bin/pause" "$src/build/pause/linux/pause.c"
  strip "$1/bin/pause"
  rm -rf "$src"
}

# etcd server: its module has a replace block pointing at ../api etc.; the requires already pin
# the same version, so the block is dropped.
b_etcd() {
  local src="$1/src"
  module_copy "go.etcd.io/etcd/server/v3@$ETCD_VERSION" "$src"
  sed -i '/^replace (/,/^)/d' "$src/go.mod"
  (cd "$src" && CGO_ENABLED=0 "${NICE[@]}" go build -trimpath -ldflags "-s -w" -o "$1/bin/etcd" .)
  rm -rf "$src"
}

b_coredns() {
  local src="$1/src"
  module_copy "github.com/coredns/coredns@$COREDNS_VERSION" "$src"
  (cd "$src" && CGO_ENABLED=0 "${NICE[@]}" go build -trimpath -ldflags "-s -w" -o "$1/bin/coredns" .)
  rm -rf "$src"
}

# containerd v2 (Debian's 1.6 lacks `ctr images import --label`, which kind uses).
b_containerd() {
  (cd / && GOBIN="$1/bin" CGO_ENABLED=0 "${NICE[@]}" go install -ldflags "-s -w" -tags "no_btrfs no_devmapper no_zfs no_aufs" \
    "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION")
}

b_local_path() {
  local src="$1/src"
  module_copy "github.com/rancher/local-path-provisioner@$LOCAL_PATH_VERSION" "$src"
  (cd "$src" && CGO_ENABLED=0 "${NICE[@]}" go build -trimpath -ldflags "-s -w" -o "$1/bin/local-path-provisioner" .)
  rm -rf "$src"
}

# Traefik v3: built inside its module (its go.mod has replace directives `go install` refuses).
b_traefik() {
  local src="$1/src"
  module_copy "github.com/traefik/traefik/v3@$TRAEFIK_VERSION" "$src"
  (cd "$src" && CGO_ENABLED=0 "${NICE[@]}" go build -trimpath \
    -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$TRAEFIK_VERSION" \
    -o "$1/bin/traefik" ./cmd/traefik)
  rm -rf "$src"
}

build_one() {
  case "$1" in
    kind) done_or_build "kind-$KIND_VERSION" b_kind ;;
    k8s) done_or_build "kubernetes-$K8S_VERSION" b_k8s ;;
    etcd) done_or_build "etcd-$ETCD_VERSION" b_etcd ;;
    coredns) done_or_build "coredns-$COREDNS_VERSION" b_coredns ;;
    containerd) done_or_build "containerd-$CONTAINERD_VERSION" b_containerd ;;
    local-path) done_or_build "local-path-provisioner-$LOCAL_PATH_VERSION" b_local_path ;;
    traefik) done_or_build "traefik-$TRAEFIK_VERSION" b_traefik ;;
    *) die "unknown component $1 (kind k8s etcd coredns containerd local-path traefik)" ;;
  esac
}

if [ "$#" = 0 ]; then set -- kind k8s etcd containerd coredns local-path traefik; fi
for c in "$@"; do build_one "$c"; done
