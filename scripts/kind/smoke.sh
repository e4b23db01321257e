#!/usr/bin/env bash
# Smoke test of a `make kind-up` cluster, entirely through the ingress (Traefik on 127.0.0.1:80,
# Host $KIND_HOST): a user made with the users CLI inside its pod, a deposit with a file, publish,
# search, download (bytes compared), OAI-PMH GetRecord. Each step checks its answer; the first
# failure prints what came back and exits 1. Use after up.sh, or alone against a running cluster.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
base="http://$KIND_HOST"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
# jget <field path> < json: one field of a JSON document (last line when several).
jget() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const lines=s.trim().split("\n");let v=JSON.parse(lines[lines.length-1]);for(const k of process.argv[1].split("."))v=v?.[k];if(v===undefined)process.exit(3);process.stdout.write(typeof v==="string"?v:JSON.stringify(v))})' "$1"; }
# call <expected status> <curl args...>: body to $work/body, fails loudly on another status.
call() {
  local want="$1"; shift
  local got; got="$(icurl -sS -o "$work/body" -w '%{http_code}' --max-time 60 "$@")" || got="curl-error"
  if [ "$got" != "$want" ]; then
    printf 'smoke: %s -> %s (expected %s): %s\n' "${*: -1}" "$got" "$want" "$(head -c 600 "$work/body" 2>/dev/null)" >&2
    exit 1
  fi
}
t0=$SECONDS
email="kind-smoke-$(date +%s)-$RANDOM@example.org"
out="$(kubectl -n "$KIND_NAMESPACE" exec deploy/rdm-users -- node dist/users/cli.js create-user --email "$email" --admin)" ||
  die "users CLI (create-user) failed in the users pod"
token="$(printf '%s\n' "$out" | jget token)" || die "users CLI printed no token: $out"
say "user $email created with the CLI in the users pod"
auth=(-H "Authorization: Bearer $token")
title="kind smoke $(date +%s) $RANDOM"
call 201 "${auth[@]}" -H 'Content-Type: application/json' -d "{\"access\":{\"record\":\"public\",\"files\":\"public\"},\"files\":{\"enabled\":true},
  \"metadata\":{\"title\":\"$title\",\"publication_date\":\"2024-01-01\",\"resource_type\":{\"id\":\"dataset\"},
  \"creators\":[{\"person_or_org\":{\"type\":\"personal\",\"family_name\":\"Kind\",\"given_name\":\"Smoke\"}}]}}" "$base/api/records"
id="$(jget id <"$work/body")"
head -c 300000 /dev/urandom >"$work/data.bin"
call 201 "${auth[@]}" -H 'Content-Type: application/json' -d '[{"key":"data.bin"}]' "$base/api/records/$id/draft/files"
call 200 "${auth[@]}" -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$work/data.bin" "$base/api/records/$id/draft/files/data.bin/content"
call 200 "${auth[@]}" -X POST "$base/api/records/$id/draft/files/data.bin/commit"
call 202 "${auth[@]}" -X POST "$base/api/records/$id/draft/actions/publish"
say "record $id deposited with a 300 kB file and published"
found=0
for _ in $(seq 1 60); do
  call 200 -G --data-urlencode "q=\"$title\"" "$base/api/records"
  if grep -q "\"$id\"" "$work/body"; then found=1; break; fi
  sleep 1
done
[ "$found" = 1 ] || die "published record $id not found by search for \"$title\" within 60 s"
say "record $id found by search"
call 200 -L "$base/api/records/$id/files/data.bin/content"
cmp -s "$work/body" "$work/data.bin" || die "downloaded file differs from the uploaded one"
say "file downloaded, bytes identical"
call 200 "$base/api/records/$id"
oai="$(jget pids.oai.identifier <"$work/body")" || die "record $id has no pids.oai: $(head -c 400 "$work/body")"
call 200 -G --data-urlencode verb=GetRecord --data-urlencode "identifier=$oai" --data-urlencode metadataPrefix=oai_dc "$base/oai2d"
grep -q "$title" "$work/body" || die "OAI-PMH GetRecord $oai does not carry the title: $(head -c 600 "$work/body")"
say "OAI-PMH GetRecord $oai OK"
say "smoke test passed through the ingress in $((SECONDS - t0)) s"
