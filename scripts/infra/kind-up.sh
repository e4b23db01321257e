#!/usr/bin/env bash
# `make kind-up`: a local Kubernetes cluster (kind) running the whole repository through an ingress.
#
# Only meaningful on a machine with a working Docker engine (kind runs its nodes as containers);
# elsewhere it says what it would do and exits 1. Steps:
#   1. kind, kubectl and helm: from PATH, else into .tools/bin (helm via scripts/infra/helm.sh,
#      kind and kubectl with `go install` / the pinned release URL).
#   2. cluster `$KIND_CLUSTER` (rdm) with ports 80/443 of the node mapped to the host, unless it exists.
#   3. ingress-nginx (kind's manifest, pinned) and a wait until its controller is ready.
#   4. the image: `docker build -t $IMAGE .` (one image, every service) + `kind load docker-image`.
#   5. `helm upgrade --install rdm charts/rdm` in namespace `$KIND_NAMESPACE` with the image just
#      built (pullPolicy Never). Migration Jobs are hooks; helm waits for them. Then every
#      Deployment and StatefulSet is waited for (`kubectl rollout status`).
#   6. smoke test through the ingress at http://$KIND_HOST (*.localtest.me resolves to 127.0.0.1):
#      create a user with the users CLI in its pod, deposit and publish a record, search for it.
# Env: KIND_CLUSTER, KIND_NAMESPACE, KIND_HOST (rdm.localtest.me), IMAGE (rdm:kind), HELM_TIMEOUT
# (15m), KIND_VERSION, KUBECTL_VERSION, INGRESS_NGINX_VERSION.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KIND_CLUSTER="${KIND_CLUSTER:-rdm}"
KIND_NAMESPACE="${KIND_NAMESPACE:-rdm}"
KIND_HOST="${KIND_HOST:-rdm.localtest.me}"
IMAGE="${IMAGE:-rdm:kind}"
HELM_TIMEOUT="${HELM_TIMEOUT:-15m}"
KIND_VERSION="${KIND_VERSION:-v0.27.0}"
KUBECTL_VERSION="${KUBECTL_VERSION:-v1.31.6}"
INGRESS_NGINX_VERSION="${INGRESS_NGINX_VERSION:-controller-v1.12.1}"
export PATH="$TOOLS_DIR/bin:$PATH"
# The project's engine (make docker-up) when no other answers.
DOCKER_HOST="${DOCKER_HOST:-$(bash "$INFRA_DIR/docker.sh" host)}"
export DOCKER_HOST

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  cat >&2 <<EOF
make kind-up: no working Docker engine on this machine (\`docker info\` failed or docker is absent).
kind runs Kubernetes nodes as Docker containers, so no cluster can be created here. With Docker it would:
  1. create kind cluster '$KIND_CLUSTER' (node ports 80/443 on the host) and install ingress-nginx $INGRESS_NGINX_VERSION;
  2. build every image here (scripts/images.sh) and kind load them;
  3. helm upgrade --install rdm charts/rdm -n $KIND_NAMESPACE (in-cluster PostgreSQL, NATS JetStream, MinIO);
  4. wait for every pod, then create a user, deposit, publish and search through http://$KIND_HOST/api.
What can be checked without an engine is checked by: make build && make chart-check
EOF
  exit 1
fi

# ---- tools
bash "$INFRA_DIR/helm.sh" install
mkdir -p "$TOOLS_DIR/bin"
if ! command -v kind >/dev/null 2>&1; then
  go="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$go" ] || die "kind not found and no Go toolchain to build it (install kind $KIND_VERSION)"
  say "building sigs.k8s.io/kind@$KIND_VERSION into $TOOLS_DIR/bin"
  (cd / && GOBIN="$TOOLS_DIR/bin" CGO_ENABLED=0 "$go" install "sigs.k8s.io/kind@$KIND_VERSION") || die "go install kind failed"
fi
if ! command -v kubectl >/dev/null 2>&1; then
  say "downloading kubectl $KUBECTL_VERSION"
  curl -fsSLo "$TOOLS_DIR/bin/kubectl" "https://dl.k8s.io/release/$KUBECTL_VERSION/bin/linux/amd64/kubectl" || die "kubectl download failed"
  chmod +x "$TOOLS_DIR/bin/kubectl"
fi

# ---- cluster + ingress controller
if ! kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  say "creating kind cluster $KIND_CLUSTER"
  kind create cluster --name "$KIND_CLUSTER" --wait 180s --config - <<'YAML' || die "kind create cluster failed"
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
  - role: control-plane
    kubeadmConfigPatches:
      - |
        kind: InitConfiguration
        nodeRegistration:
          kubeletExtraArgs:
            node-labels: "ingress-ready=true"
    extraPortMappings:
      - { containerPort: 80, hostPort: 80, protocol: TCP }
      - { containerPort: 443, hostPort: 443, protocol: TCP }
YAML
fi
kubeconfig="$DATA_DIR/kind-$KIND_CLUSTER.kubeconfig"
kind get kubeconfig --name "$KIND_CLUSTER" >"$kubeconfig"
export KUBECONFIG="$kubeconfig"

say "installing ingress-nginx $INGRESS_NGINX_VERSION"
kubectl apply -f "https://raw.githubusercontent.com/kubernetes/ingress-nginx/$INGRESS_NGINX_VERSION/deploy/static/provider/kind/deploy.yaml" >/dev/null ||
  die "ingress-nginx install failed"
kubectl -n ingress-nginx wait --for=condition=ready pod -l app.kubernetes.io/component=controller --timeout=300s >/dev/null ||
  die "ingress-nginx controller not ready"

# ---- image
cd "$REPO_ROOT"
# Every image is built here (scripts/images.sh: no registry needed), the chart's infrastructure
# images included (its defaults: rdm-postgres, rdm-nats, rdm-minio, rdm-opensearch), and loaded.
say "building the images (scripts/images.sh; $IMAGE for the services)"
IMAGE="$IMAGE" bash "$REPO_ROOT/scripts/images.sh" all || die "make images failed"
for img in "$IMAGE" $(helm show values charts/rdm | sed -nE 's/^  image: \{ repository: ([^,]+), tag: "([^"]+)".*/\1:\2/p'); do
  kind load docker-image "$img" --name "$KIND_CLUSTER" >/dev/null || die "kind load $img failed"
done

# ---- release (migration Jobs are hooks: helm waits for them)
say "helm upgrade --install rdm charts/rdm (namespace $KIND_NAMESPACE)"
helm upgrade --install rdm charts/rdm --namespace "$KIND_NAMESPACE" --create-namespace \
  --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" --set image.pullPolicy=Never \
  --set ingress.host="$KIND_HOST" --set publicBaseUrl="http://$KIND_HOST" \
  --timeout "$HELM_TIMEOUT" || die "helm install failed (kubectl -n $KIND_NAMESPACE get pods,jobs)"
for w in $(kubectl -n "$KIND_NAMESPACE" get deploy,statefulset -o name); do
  kubectl -n "$KIND_NAMESPACE" rollout status "$w" --timeout=600s >/dev/null || die "$w not ready"
done

# ---- smoke test through the ingress
base="http://$KIND_HOST/api"
say "smoke test through $base"
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s.trim().split("\n").pop())[process.argv[1]]))' "$1"; }
out="$(kubectl -n "$KIND_NAMESPACE" exec deploy/rdm-users -- /nodejs/bin/node dist/users/cli.js create-user --email "kind-$(date +%s)@example.org" --admin)" ||
  die "users CLI failed"
token="$(printf '%s\n' "$out" | json token)"
auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
id="$(curl -fsS "${auth[@]}" -d '{"access":{"record":"public","files":"public"},"files":{"enabled":false},
  "metadata":{"title":"kind smoke test","publication_date":"2024-01-01","resource_type":{"id":"dataset"},
  "creators":[{"person_or_org":{"type":"personal","family_name":"Kind","given_name":"Smoke"}}]}}' "$base/records" | json id)" ||
  die "deposit failed"
curl -fsS "${auth[@]}" -X POST "$base/records/$id/draft/actions/publish" >/dev/null || die "publish of $id failed"
found=0
for _ in $(seq 1 30); do
  if curl -fsS "$base/records?q=%22kind%20smoke%20test%22" | grep -q "\"$id\""; then found=1; break; fi
  sleep 2
done
[ "$found" = 1 ] || die "published record $id not found by search"
echo "kind cluster '$KIND_CLUSTER' ready: $base (record $id published and found); KUBECONFIG=$kubeconfig"
