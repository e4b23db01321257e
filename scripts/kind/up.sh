#!/usr/bin/env bash
# `make kind-up`: a single-node kind cluster built on this machine running the whole repository
# behind a Traefik ingress, then a smoke test through that ingress. Idempotent: a second run
# reuses the cluster, the cached builds and images, and upgrades the release.
#
# Steps: Docker engine (scripts/infra/docker.sh) -> everything the cluster is made of
# (scripts/kind/build.sh: cached by version in $RDM_KIND_DIR) -> cluster (scripts/kind/cluster.yaml)
# -> Traefik (scripts/kind/traefik.yaml) -> the project's images (scripts/images.sh) loaded ->
# `helm upgrade --install rdm charts/rdm` (migrations are hook Jobs, helm waits for them) -> every
# Deployment/StatefulSet rolled out -> scripts/kind/smoke.sh.
# Env: KIND_CLUSTER (rdm), KIND_NAMESPACE (rdm), KIND_HOST (rdm.localtest.me), IMAGE (rdm:kind),
# SEARCH_ENGINE=opensearch (also the in-cluster OpenSearch), HELM_TIMEOUT (15m), KIND_SKIP_SMOKE=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
t_all=$SECONDS
step() { say "[$((SECONDS - t_all)) s] $*"; }

bash "$INFRA_DIR/docker.sh" start
docker info >/dev/null 2>&1 || die "no working Docker engine (make docker-up)"
step "building or reusing the cluster's components (scripts/kind/build.sh)"
node_image="$(bash "$KIND_DIR_SCRIPTS/build.sh" node | tail -n 1)"
bash "$INFRA_DIR/helm.sh" install

# ---- cluster
if cluster_exists && [ "$(docker inspect --format '{{.Image}}' "$KIND_CLUSTER-control-plane" 2>/dev/null)" != "$(docker image inspect --format '{{.Id}}' "$node_image")" ]; then
  step "cluster $KIND_CLUSTER runs another node image: deleting it"
  kind_ delete cluster --name "$KIND_CLUSTER" --kubeconfig "$KUBECONFIG"
fi
if ! cluster_exists; then
  step "creating kind cluster $KIND_CLUSTER ($node_image)"
  kind_ create cluster --name "$KIND_CLUSTER" --image "$node_image" --config "$KIND_DIR_SCRIPTS/cluster.yaml" \
    --kubeconfig "$KUBECONFIG" --wait 3m || die "kind create cluster failed"
else
  kind_ export kubeconfig --name "$KIND_CLUSTER" --kubeconfig "$KUBECONFIG" >/dev/null
fi
kubectl wait --for=condition=Ready node --all --timeout=180s >/dev/null || die "node not Ready"
kubectl -n kube-system rollout status deploy/coredns --timeout=180s >/dev/null || die "CoreDNS not ready"

# ---- images: the project's (built by scripts/images.sh, cached by content) + Traefik
images=(base service postgres nats minio)
values=(-f "$KIND_DIR_SCRIPTS/values.yaml")
if [ "${SEARCH_ENGINE:-postgres}" = opensearch ]; then
  images+=(opensearch); values+=(--set search.engine=opensearch --set opensearch.enabled=true)
fi
step "building or reusing the project's images (scripts/images.sh ${images[*]})"
(cd "$REPO_ROOT" && IMAGE="$IMAGE" bash scripts/images.sh "${images[@]}") || die "scripts/images.sh failed"
# A tag per build of the service image, so that `helm upgrade` rolls the pods when it changed.
svc_tag="kind-$(docker image inspect --format '{{.Id}}' "$IMAGE" | cut -d: -f2 | cut -c1-12)"
docker tag "$IMAGE" "${IMAGE%:*}:$svc_tag"
load=("${IMAGE%:*}:$svc_tag")
for i in $(helm show values "$REPO_ROOT/charts/rdm" | sed -nE 's/^  image: \{ repository: ([^,]+), tag: "([^"]+)".*/\1:\2/p'); do
  case "$i" in rdm-opensearch:*) [ "${SEARCH_ENGINE:-postgres}" = opensearch ] || continue ;; esac
  load+=("$i")
done
step "kind load docker-image ${load[*]}"
for i in "${load[@]}"; do kind_ load docker-image --name "$KIND_CLUSTER" "$i" >/dev/null || die "kind load $i failed"; done

# ---- ingress controller
step "Traefik $TRAEFIK_VERSION (ingress class traefik): building or reusing it"
bash "$KIND_DIR_SCRIPTS/build.sh" ingress >/dev/null
kind_ load docker-image --name "$KIND_CLUSTER" "rdm-traefik:$TRAEFIK_VERSION" >/dev/null || die "kind load rdm-traefik failed"
sed "s#__TRAEFIK_IMAGE__#rdm-traefik:$TRAEFIK_VERSION#" "$KIND_DIR_SCRIPTS/traefik.yaml" | kubectl apply -f - >/dev/null || die "Traefik manifest refused"
kubectl -n ingress-traefik rollout status deploy/traefik --timeout=180s >/dev/null || die "Traefik not ready"

# ---- release (no --wait: with the in-cluster database the migration Jobs are post-install hooks,
# and the services are not ready before them; helm waits for the hooks, rollout status for the rest)
step "helm upgrade --install rdm charts/rdm (namespace $KIND_NAMESPACE, image ${IMAGE%:*}:$svc_tag)"
helm upgrade --install rdm "$REPO_ROOT/charts/rdm" --namespace "$KIND_NAMESPACE" --create-namespace "${values[@]}" \
  --set image.repository="${IMAGE%:*}" --set image.tag="$svc_tag" --set image.pullPolicy=Never \
  --set ingress.host="$KIND_HOST" --set publicBaseUrl="http://$KIND_HOST" \
  --timeout "$HELM_TIMEOUT" || {
    kubectl -n "$KIND_NAMESPACE" get pods,jobs >&2 || true
    die "helm upgrade --install failed"
  }
for w in $(kubectl -n "$KIND_NAMESPACE" get deploy,statefulset -o name); do
  kubectl -n "$KIND_NAMESPACE" rollout status "$w" --timeout=600s >/dev/null || die "$w not rolled out"
done
step "release rolled out"

if [ "${KIND_SKIP_SMOKE:-0}" != 1 ]; then bash "$KIND_DIR_SCRIPTS/smoke.sh"; fi
step "done: http://$KIND_HOST/api (127.0.0.1:80; curl --resolve $KIND_HOST:80:127.0.0.1), KUBECONFIG=$KUBECONFIG"
