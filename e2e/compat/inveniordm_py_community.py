#!/usr/bin/env python3
"""Community review driven from Python the way InvenioRDM users script it, unmodified clients.

When to use: to prove the collaborative half works for Python callers. `inveniordm-py` 0.1.1
(its only release) has no community or request API, so its users reach those endpoints through
the client's own authenticated `requests.Session` (`client.session`, keep-alive sockets reused
across calls, urllib3 underneath) — exactly what this script does — while drafts, files,
publication and reads go through the client's record API. Run by
e2e/specs/compat/inveniordm-py.test.ts; by hand:

    BASE_URL=http://127.0.0.1:5900 ADMIN_TOKEN=<admin token> TOKEN=<depositor token> \
        CURATOR_TOKEN=<token> CURATOR_ID=<user id> python e2e/compat/inveniordm_py_community.py

Steps: the administrator creates a community (review required) and uploads its logo; invites the
curator, who finds the invitation in their requests and accepts it; the depositor creates a
draft with a file through the client, attaches a community-submission review and submits it;
the curator finds it in the community's requests, comments and accepts; the record reads as
published through the client, in the community. Keep-alive matters here: every call of a
session reuses its socket, so a hung or half-read answer would stall the script.
Prints one JSON summary on stdout; exits 0, or 1 with `ok: false`, the failed step and the log.
"""

import base64
import json
import os
import sys
import traceback
import uuid
from urllib.parse import urlsplit

import inveniordm_py
from inveniordm_py import InvenioAPI
from inveniordm_py.files.metadata import FilesListMetadata, OutgoingStream
from inveniordm_py.records.metadata import DraftMetadata

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


class StepFailed(Exception):
    """A check of the workflow did not hold."""


def check(cond, message):
    """Raise StepFailed(message) unless cond."""
    if not cond:
        raise StepFailed(message)


def api_base(url):
    """The client's base URL: the gateway's `/api`."""
    url = url.rstrip("/")
    return url if url.endswith("/api") else url + "/api"


def main():
    env = {k: os.environ.get(k) for k in ("BASE_URL", "ADMIN_TOKEN", "TOKEN", "CURATOR_TOKEN", "CURATOR_ID")}
    if not all(env.values()):
        print(json.dumps({"ok": False, "error": f"set {', '.join(env)}"}))
        return 2
    api = api_base(env["BASE_URL"])
    admin = InvenioAPI(api, env["ADMIN_TOKEN"])
    depositor = InvenioAPI(api, env["TOKEN"])
    curator = InvenioAPI(api, env["CURATOR_TOKEN"])
    summary = {"ok": False, "client": f"inveniordm-py {inveniordm_py.__version__} + its requests session", "http": []}

    def hook(resp, *args, **kwargs):
        path = urlsplit(resp.request.url).path
        summary["http"].append(f"{resp.request.method} {path} -> {resp.status_code}")

    for c in (admin, depositor, curator):
        c.session.hooks["response"].append(hook)

    def call(client, method, path, expect, **kwargs):
        res = client.session.request(method, api + path, timeout=30, **kwargs)
        if res.status_code != expect:
            raise StepFailed(f"{method} {path}: HTTP {res.status_code} (expected {expect}): {res.text[:500]}")
        return res.json() if res.content else None

    tag = "py" + uuid.uuid4().hex[:8]
    step = "init"
    try:
        step = "create community"
        community = call(
            admin,
            "POST",
            "/communities",
            201,
            json={
                "slug": tag,
                "access": {"visibility": "public", "member_policy": "open", "record_policy": "open", "review_policy": "closed"},
                "metadata": {"title": f"Python community {tag}", "description": "Made from Python", "type": {"id": "project"}},
            },
        )
        cid = community["id"]

        step = "upload logo"
        logo = call(admin, "PUT", f"/communities/{cid}/logo", 200, data=PNG, headers={"Content-Type": "application/octet-stream"})
        check(logo.get("size") == len(PNG), f"logo size {logo.get('size')}")
        got = admin.session.get(f"{api}/communities/{cid}/logo", timeout=30)
        check(got.status_code == 200 and got.content == PNG, "logo bytes differ")

        step = "find community"
        found = call(depositor, "GET", "/communities", 200, params={"q": tag})
        check(cid in [h["id"] for h in found["hits"]["hits"]], "community not found by search")

        step = "invite curator"
        call(admin, "POST", f"/communities/{cid}/invitations", 204, json={"members": [{"type": "user", "id": env["CURATOR_ID"]}], "role": "curator"})
        mine = call(curator, "GET", "/user/requests", 200)
        inv = next((h for h in mine["hits"]["hits"] if h.get("topic", {}).get("community") == cid), None)
        check(inv is not None and inv["status"] == "submitted", f"invitation not found: {mine['hits']['total']} requests")
        accepted = call(curator, "POST", f"/requests/{inv['id']}/actions/accept", 200, json={"payload": {"content": "Glad to help", "format": "html"}})
        check(accepted["status"] == "accepted", f"invitation status {accepted['status']}")

        step = "create draft with a file (client API)"
        data = {
            "access": {"record": "public", "files": "public"},
            "files": {"enabled": True},
            "metadata": {
                "title": f"Python review {tag}",
                "resource_type": {"id": "dataset"},
                "publication_date": "2024-05-13",
                "creators": [{"person_or_org": {"type": "personal", "family_name": "Brown", "given_name": "Troy"}}],
            },
        }
        draft = depositor.records.create(data=DraftMetadata(**data))
        draft_id = draft.data["id"]
        draft.files.create(FilesListMetadata([{"key": "data.csv"}]))
        # The client form-encodes what it uploads (a client defect documented in
        # inveniordm_py_workflow.py); the bytes do not matter here, the review flow does.
        for f in draft.files:
            f.set_contents(OutgoingStream(data=b"a,b\n1,2\n"))
            f.commit()

        step = "attach review"
        review = call(depositor, "PUT", f"/records/{draft_id}/draft/review", 200, json={"type": "community-submission", "receiver": {"community": cid}})
        check(review["status"] == "created" and "submit" in review["links"]["actions"], f"review {review['status']}")

        step = "submit review"
        submitted = call(
            depositor, "POST", f"/records/{draft_id}/draft/actions/submit-review", 202, json={"payload": {"content": "Please have a look", "format": "html"}}
        )
        check(submitted["status"] == "submitted", f"submitted status {submitted['status']}")

        step = "curator finds and accepts"
        queue = call(curator, "GET", f"/communities/{cid}/requests", 200)
        check(review["id"] in [h["id"] for h in queue["hits"]["hits"]], "submission not in the community's requests")
        call(curator, "POST", f"/requests/{review['id']}/comments", 201, json={"payload": {"content": "Looks fine", "format": "html"}})
        done = call(curator, "POST", f"/requests/{review['id']}/actions/accept", 200, json={"payload": {"content": "Accepted", "format": "html"}})
        check(done["status"] == "accepted", f"accept status {done['status']}")

        step = "read published record (client API)"
        record = depositor.records(draft_id).get().data
        check(record["is_published"] is True, "record not published")
        check(record["parent"]["communities"]["ids"] == [cid], f"communities {record['parent']['communities']}")
        listed = call(depositor, "GET", f"/communities/{tag}/records", 200)
        check(draft_id in [h["id"] for h in listed["hits"]["hits"]], "record not listed in the community")
        timeline = call(depositor, "GET", f"/requests/{review['id']}/timeline", 200)

        summary.update(
            ok=True,
            community={"id": cid, "slug": tag},
            invitation={"id": inv["id"], "status": accepted["status"]},
            review={"id": review["id"], "status": done["status"]},
            record={"id": draft_id, "is_published": record["is_published"], "communities": record["parent"]["communities"]["ids"]},
            timeline=[[h["type"], h["payload"].get("event") or h["payload"].get("content")] for h in timeline["hits"]["hits"]],
        )
        print(json.dumps(summary))
        return 0
    except Exception as exc:  # noqa: BLE001 - the summary carries every failure
        summary.update(ok=False, failed_step=step, error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-2000:])
        print(json.dumps(summary))
        return 1


if __name__ == "__main__":
    sys.exit(main())
