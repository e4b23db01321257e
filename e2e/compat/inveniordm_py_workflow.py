#!/usr/bin/env python3
"""The submission workflow driven by the official InvenioRDM Python client, unmodified.

When to use: to prove that a real client (`inveniordm-py`, pinned in requirements.txt) works
against our API. Run by e2e/specs/compat/inveniordm-py.test.ts; by hand:

    BASE_URL=http://127.0.0.1:5900 TOKEN=<personal access token> \
        python e2e/compat/inveniordm_py_workflow.py

`BASE_URL` is the gateway (the script appends `/api` unless it already ends with it, like the
`https://host/api` URL a real InvenioRDM client is given). Prints one JSON summary on stdout and
exits 0, or exits 1 with `ok: false`, the failed step and the HTTP exchange log.

Steps use the client's public API as its README and its own tests use it:
create a draft with full metadata, update it, register two files, upload and commit them,
publish, read the record and its files, search, create a new version, import the files,
update (GET->PUT round trip of the read form), publish, list the versions, edit a published
record, delete a throw-away draft.

Known defects of inveniordm-py 0.1.1 (client side, a real InvenioRDM behaves the same):
- README's `DraftMetadata(data)` raises TypeError (`Metadata.__init__(**data)`): use
  `DraftMetadata(**data)` as the client's own tests do.
- `OutgoingStream(data=stream).to_request()` returns the dict `{"data": stream}`, which requests
  form-encodes (`data=<line>&data=<line>…`) under `Content-Type: application/octet-stream`: the
  stored bytes are that encoding, not the file. The script records the bytes actually sent (a
  response hook on the client's session) and checks server checksum == md5(sent) == md5(download).
- `Record.new_version()` returns a Draft whose endpoint arguments keep the previous record id
  (they take precedence over the data's id): the script binds `client.records(new_id).draft`.
- `record.versions.search()` reads `aggregations` from the answer, which InvenioRDM's versions list
  does not carry (KeyError): the script lists the versions with the client's session and URL
  builder.
- `Draft.import_files()` first POSTs `/records/{id}/draft` (no suffix) and then calls
  `None.from_response`: it always raises. The script calls it (the POST must answer like
  InvenioRDM's edit: 201 with the existing draft), then POSTs `…/actions/files-import` with the
  client's own session and URL builder.
"""

import hashlib
import json
import os
import sys
import tempfile
import traceback
import uuid
from urllib.parse import urlsplit

import requests

import inveniordm_py
from inveniordm_py import InvenioAPI
from inveniordm_py.files.metadata import FilesListMetadata, OutgoingStream
from inveniordm_py.records.metadata import DraftMetadata


class StepFailed(Exception):
    """A check of the workflow did not hold."""


def md5(data):
    """`md5:<hex>` of bytes (InvenioRDM's checksum form)."""
    return "md5:" + hashlib.md5(data).hexdigest()


def check(cond, message):
    """Raise StepFailed(message) unless cond."""
    if not cond:
        raise StepFailed(message)


def opt(meta, key):
    """`meta[key]` or None (the client's Metadata objects only support `[]`)."""
    try:
        return meta[key]
    except KeyError:
        return None


def metadata_errors(meta):
    """The draft's save errors, less InvenioRDM's "Missing uploaded files" (files come later)."""
    return [e for e in (opt(meta, "errors") or []) if e.get("field") != "files.enabled"]


def body_bytes(body):
    """The bytes of a prepared request body (str bodies are sent latin-1 by http.client)."""
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("latin-1")
    raise StepFailed(f"unexpected request body type {type(body).__name__}")


def api_base(url):
    """The client's base URL: the gateway's `/api` (InvenioRDM clients are given https://host/api)."""
    url = url.rstrip("/")
    return url if url.endswith("/api") else url + "/api"


def main():
    base = os.environ.get("BASE_URL")
    token = os.environ.get("TOKEN")
    if not base or not token:
        print(json.dumps({"ok": False, "error": "BASE_URL and TOKEN must be set"}))
        return 2

    summary = {"ok": False, "client": f"inveniordm-py {inveniordm_py.__version__}", "base_url": api_base(base)}
    http_log = []
    sent_bodies = {}
    step = "init"

    client = InvenioAPI(api_base(base), token)

    def hook(resp, *args, **kwargs):
        req = resp.request
        path = urlsplit(req.url).path + (("?" + urlsplit(req.url).query) if urlsplit(req.url).query else "")
        http_log.append(f"{req.method} {path} -> {resp.status_code}")
        if req.method == "PUT" and path.endswith("/content"):
            sent_bodies[path] = body_bytes(req.body)

    client.session.hooks["response"].append(hook)

    tag = "compat" + uuid.uuid4().hex[:10]
    workdir = tempfile.mkdtemp(prefix="inveniordm-py-")
    local_files = {
        "article.txt": f"Compat test {tag}\nA second line & some symbols: = ? % +\n".encode(),
        "data.csv": b"a,b,c\n1,2,3\n4,5,6\n",
    }
    for name, content in local_files.items():
        with open(os.path.join(workdir, name), "wb") as fh:
            fh.write(content)

    metadata = {
        "title": f"inveniordm-py compatibility {tag}",
        "resource_type": {"id": "publication-article"},
        "publication_date": "2024-05-13",
        "creators": [
            {
                "person_or_org": {
                    "family_name": "Brown",
                    "given_name": "Troy",
                    "type": "personal",
                    "identifiers": [{"scheme": "orcid", "identifier": "0000-0002-1825-0097"}],
                },
                "affiliations": [{"id": "01ggx4157"}],
            },
            {"person_or_org": {"name": "Mars Institute", "type": "organizational"}},
        ],
        "description": f"<p>Written by the <b>inveniordm-py</b> client ({tag}).</p>",
        "rights": [{"id": "cc-by-4.0"}],
        "languages": [{"id": "eng"}],
        "subjects": [{"subject": "Client compatibility"}],
        "publisher": "InvenioRDM",
    }
    data = {"access": {"record": "public", "files": "public"}, "files": {"enabled": True}, "metadata": metadata}

    try:
        step = "create draft"
        draft = client.records.create(data=DraftMetadata(**data))
        draft_id = draft.data["id"]
        check(draft.data["is_draft"] is True and draft.data["is_published"] is False, "created item is not a draft")
        check(draft.data["metadata"]["title"] == metadata["title"], "title not stored")
        check(len(draft.data["metadata"]["creators"]) == 2, "creators not stored")
        check(not metadata_errors(draft.data), f"draft saved with errors: {opt(draft.data, 'errors')}")

        step = "update draft"
        data["metadata"]["version"] = "v1"
        draft.update(data=DraftMetadata(**data))
        check(draft.data["id"] == draft_id, "update changed the draft id")
        check(draft.data["metadata"].get("version") == "v1", "update not applied")
        check(not metadata_errors(draft.data), f"update saved with errors: {opt(draft.data, 'errors')}")

        step = "read draft"
        draft.get()
        check(draft.data["id"] == draft_id and draft.data["metadata"]["version"] == "v1", "draft read differs")

        step = "register files"
        listing = draft.files.create(FilesListMetadata([{"key": k} for k in local_files]))
        keys = sorted(e["key"] for e in listing.data["entries"])
        check(keys == sorted(local_files), f"registered entries {keys}")

        step = "upload and commit files"
        uploaded = []
        for f in draft.files:
            key = f.data["key"]
            with open(os.path.join(workdir, key), "rb") as stream:
                f.set_contents(OutgoingStream(data=stream))
            committed = f.commit()
            check(committed.data["status"] == "completed", f"{key}: commit status {committed.data['status']}")
            uploaded.append(key)
        check(sorted(uploaded) == sorted(local_files), f"uploaded {uploaded}")

        step = "publish"
        record = draft.publish()
        check(record.data["id"] == draft_id, "published id differs from the draft id")
        check(record.data["status"] == "published", f"status {record.data['status']}")
        check(record.data["is_published"] is True, "is_published is not true")
        parent_id = record.data["parent"]["id"]

        step = "read record"
        read = client.records(draft_id).get()
        rd = read.data
        check(rd["id"] == draft_id and rd["is_published"] is True, "record read differs")
        check(rd["metadata"]["title"] == metadata["title"], "title differs")
        check(
            sorted(c["person_or_org"]["type"] for c in rd["metadata"]["creators"]) == ["organizational", "personal"],
            "creator types differ",
        )
        check(rd["metadata"]["resource_type"]["id"] == "publication-article", "resource type differs")
        check(rd["metadata"]["publication_date"] == "2024-05-13", "publication date differs")
        check(rd["metadata"]["rights"][0]["id"] == "cc-by-4.0", "rights differ")
        check(rd["metadata"]["languages"][0]["id"] == "eng", "languages differ")
        check(rd["metadata"]["subjects"][0]["subject"] == "Client compatibility", "subjects differ")
        check("description" in rd["metadata"], "description missing")
        summary["record"] = {
            "id": rd["id"],
            "parent_id": parent_id,
            "self_html": rd["links"]["self_html"],
            "status": rd["status"],
            "is_published": rd["is_published"],
            "title": rd["metadata"]["title"],
            "resource_type": rd["metadata"]["resource_type"]["id"],
            "creator_types": [c["person_or_org"]["type"] for c in rd["metadata"]["creators"]],
            "languages": [x["id"] for x in rd["metadata"]["languages"]],
            "rights": [x.get("id") for x in rd["metadata"]["rights"]],
            "subjects": [x.get("subject") or x.get("id") for x in rd["metadata"]["subjects"]],
            "files_count": rd["files"].get("count"),
        }

        step = "record files"
        rfiles = read.files.get().data
        entries = {e["key"]: e for e in rfiles["entries"]}
        check(sorted(entries) == sorted(local_files), f"record file keys {sorted(entries)}")
        files_summary = []
        for key in sorted(local_files):
            content = read.files(key).download().content
            sent = next((b for p, b in sent_bodies.items() if p.endswith(f"/draft/files/{key}/content")), None)
            check(sent is not None, f"{key}: no upload seen")
            meta = read.files(key).get().data
            files_summary.append(
                {
                    "key": key,
                    "size": meta["size"],
                    "server_checksum": meta["checksum"],
                    "listed_checksum": entries[key]["checksum"],
                    "sent_md5": md5(sent),
                    "downloaded_md5": md5(content),
                    "local_md5": md5(local_files[key]),
                    "md5_matches": meta["checksum"] == entries[key]["checksum"] == md5(sent) == md5(content)
                    and meta["size"] == len(sent),
                    "identical_to_local_file": content == local_files[key],
                }
            )
        summary["files"] = files_summary
        check(all(f["md5_matches"] for f in files_summary), "checksums differ")

        step = "search records"
        page = client.records.search(q=tag)
        found = [r.data["id"] for r in page]
        check(draft_id in found, f"record not found by q={tag}: {found}")
        default_page = client.records.search()
        summary["search"] = {"query": tag, "hits": len(found), "found": draft_id in found, "default_page_hits": len(default_page)}

        step = "new version"
        new_draft = record.new_version()
        v2_id = new_draft.data["id"]
        check(v2_id != draft_id, "new version has the record's id")
        check(new_draft.data["parent"]["id"] == parent_id, "new version has another parent")
        check(new_draft.data["versions"]["index"] == 2, f"new version index {new_draft.data['versions']['index']}")
        # The Draft that new_version() returns keeps the previous record's id in its endpoint
        # arguments (they win over the data's id): bind a Draft to the new id.
        bound_to_old_id = new_draft.url() != client.records(v2_id).draft.url()
        new_draft = client.records(v2_id).draft
        new_draft.get()
        check(new_draft.data["id"] == v2_id and new_draft.data["is_published"] is False, "new-version draft read")

        step = "import files"
        quirk = None
        try:
            new_draft.import_files()
        except Exception as exc:  # the client's method cannot succeed (see module doc)
            quirk = f"Draft.import_files() raised {type(exc).__name__}: {exc}"
            if isinstance(exc, requests.HTTPError):
                raise StepFailed(f"POST /records/{{id}}/draft on a new-version draft: {exc}") from exc
        resp = client.session.post(new_draft.url("/actions/files-import"), headers=new_draft.headers())
        new_draft.raise_on_error(resp)
        imported = sorted(e["key"] for e in resp.json()["entries"])
        check(imported == sorted(local_files), f"imported {imported}")

        step = "update new version (read form round trip)"
        new_draft.get()
        new_draft.data["metadata"]["version"] = "v2"
        new_draft.update()
        check(new_draft.data["metadata"].get("version") == "v2", "new version update not applied")
        check(not opt(new_draft.data, "errors"), f"round trip saved with errors: {opt(new_draft.data, 'errors')}")

        step = "publish new version"
        v2 = new_draft.publish()
        check(v2.data["status"] == "published" and v2.data["id"] == v2_id, "new version not published")
        summary["new_version"] = {
            "id": v2_id,
            "status": v2.data["status"],
            "index": v2.data["versions"]["index"],
            "files": sorted(v2.data["files"]["entries"]),
            "import_files_quirk": quirk,
        }

        step = "list versions"
        # The client's paginated list reads `aggregations` from every list answer; InvenioRDM's
        # versions list has none (so `record.versions.search()` raises KeyError against it too).
        # The client's own session and URL builder list them instead (known defect, see header).
        params = {"q": "", "page": 1, "size": 10, "sort": "newest", "allversions": "1"}  # what search() sends
        resp = client.session.get(record.versions.url(""), params=params, headers=record.versions.headers())
        check(resp.status_code == 200, f"versions list: HTTP {resp.status_code}")
        check("aggregations" not in resp.json(), "versions list carries aggregations")
        versions = resp.json()["hits"]["hits"]
        latest = record.versions.latest()
        summary["versions"] = {
            "total": len(versions),
            "ids": [v["id"] for v in versions],
            "indexes": [v["versions"]["index"] for v in versions],
            "latest_id": latest.data["id"],
        }
        check(sorted(summary["versions"]["ids"]) == sorted([draft_id, v2_id]), f"versions {summary['versions']}")
        check(latest.data["id"] == v2_id, "latest is not the new version")

        step = "edit published record"
        edit = client.records(v2_id).edit()
        check(edit.data["id"] == v2_id and edit.data["is_published"] is True, "edit draft differs")
        edit.data["metadata"]["title"] = metadata["title"] + " (edited)"
        edit.update()
        edited = edit.publish()
        check(edited.data["metadata"]["title"].endswith("(edited)"), "edit not published")
        summary["edit"] = {"id": edited.data["id"], "revision_id": edited.data["revision_id"]}

        step = "delete a draft"
        scratch = client.records.create(data=DraftMetadata(**data))
        check(scratch.delete() is True, "delete did not return True")
        try:
            scratch.get()
            raise StepFailed("deleted draft still readable")
        except requests.HTTPError as exc:
            check(exc.response.status_code == 404, f"deleted draft read: {exc.response.status_code}")

        summary["client_quirks"] = [
            "README's DraftMetadata(data)/FileMetadata(data) raise TypeError; DraftMetadata(**data) used",
            "OutgoingStream(data=stream) uploads the form encoding of the file (data=<line>&...), not its bytes",
            "RecordVersions.create()/Record.new_version() return a Draft bound to the previous record's id"
            if bound_to_old_id
            else "Record.new_version() returned a Draft bound to the new id",
            quirk or "Draft.import_files() unexpectedly succeeded",
        ]
        summary["ok"] = True
    except Exception as exc:  # noqa: BLE001 - every failure is reported
        summary["failed_step"] = step
        summary["error"] = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, requests.HTTPError) and exc.response is not None:
            summary["response"] = {"status": exc.response.status_code, "body": exc.response.text[:2000]}
        summary["traceback"] = traceback.format_exc(limit=6)
    summary["http"] = http_log
    print(json.dumps(summary, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
