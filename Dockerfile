# syntax=docker/dockerfile:1
# One image for every service (see charts/README.md, "Image"): the command picks the service,
#   docker run rdm:<tag> dist/<service>/main.js [migrate]
# Build: `make images` (docker or podman), or docker build -t rdm:dev .
# Stage 1 installs the workspace (dev dependencies included: tsx carries esbuild) and bundles each
# service with scripts/build.ts; stage 2 is distroless: node, the bundles, the event schemas.

ARG NODE_IMAGE=node:20.19.4-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs20-debian12:nonroot

FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g pnpm@9.15.9 >/dev/null
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY proto/package.json proto/
COPY services/_platform/package.json services/_platform/
COPY services/gateway/package.json services/gateway/
COPY services/users/package.json services/users/
COPY services/vocabularies/package.json services/vocabularies/
COPY services/records/package.json services/records/
COPY services/files/package.json services/files/
COPY services/requests/package.json services/requests/
COPY services/communities/package.json services/communities/
COPY services/web/package.json services/web/
COPY e2e/package.json e2e/
RUN CI=true pnpm install --frozen-lockfile
COPY tsconfig.base.json ./
COPY scripts ./scripts
COPY proto ./proto
COPY services ./services
RUN node_modules/.bin/tsx scripts/build.ts --out=/out/dist \
 && cp scripts/wait-for.mjs /out/dist/wait-for.js \
 && cp -r proto /out/proto

FROM ${RUNTIME_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    RDM_EVENTS_DIR=/app/proto/events \
    FILES_STORAGE_PATH=/data/files \
    COMMUNITIES_STORAGE_PATH=/data/communities
COPY --from=build /out/ /app/
# distroless :nonroot is uid/gid 65532; the root filesystem can be read-only: the services write
# only to /tmp and /data/* (volumes in the chart).
USER 65532:65532
EXPOSE 8080
# ENTRYPOINT is the image's node; no HEALTHCHECK: Kubernetes probes /readyz and /healthz.
CMD ["dist/gateway/main.js"]
