#!/usr/bin/env python3
"""A published record fetched with doiggie-invenio + pooch (the InvenioRDM plugin of `doiggie`).

When to use: to prove that a second real, unmodified client reads our records. Run by
e2e/specs/compat/inveniordm-py.test.ts after the inveniordm-py workflow; by hand:

    RECORD_URL=http://127.0.0.1:5900/records/<id> python e2e/compat/doiggie_invenio_read.py

`RECORD_URL` is the record's `links.self_html` (the landing page a DOI resolves to). doiggie
resolves a DOI through doi.org (hard-coded) and then asks each plugin's
`initialize(doi, archive_url)` whether it handles the landing page; the DOI step cannot reach a
local stack, so the script calls the plugin with the landing page directly (public class
method, no code changed). Then, like `doiggie.retrieve_from_doi`: the plugin's registry
(`checksum` of each file), `download_url` (`links.content`) and pooch's retrieve, which
verifies the md5. Also the plugin's `licenses()` (the record read as
`application/vnd.inveniordm.v1+json`).

Prints one JSON summary on stdout; exits 0, or 1 with `ok: false`, the failed step and error.
"""

import hashlib
import json
import os
import sys
import tempfile
import traceback

import doiggie_invenio
import pooch
from doiggie_invenio import InvenioRDMRepository


def main():
    url = os.environ.get("RECORD_URL")
    if not url:
        print(json.dumps({"ok": False, "error": "RECORD_URL must be set"}))
        return 2
    summary = {"ok": False, "client": f"doiggie-invenio {doiggie_invenio.__version__} + pooch {pooch.__version__}", "record_url": url}
    step = "initialize"
    try:
        repo = InvenioRDMRepository.initialize("10.1234/compat", url)
        if repo is None:
            raise RuntimeError("the plugin did not recognize the record URL as InvenioRDM")
        summary["archive_url"] = repo.archive_url

        step = "registry"
        registry = repo.create_registry()
        summary["registry"] = registry

        step = "retrieve"
        cache = tempfile.mkdtemp(prefix="doiggie-")
        files = []
        for key, known_hash in sorted(registry.items()):
            path = pooch.retrieve(repo.download_url(key), known_hash=known_hash, fname=key, path=cache, progressbar=False)
            with open(path, "rb") as fh:
                content = fh.read()
            files.append({"key": key, "known_hash": known_hash, "md5": "md5:" + hashlib.md5(content).hexdigest(), "size": len(content)})
        summary["files"] = files

        step = "licenses"
        summary["licenses"] = [{"name": lic.name, "urls": [i.value for i in lic.identifiers]} for lic in repo.licenses()]
        summary["ok"] = True
    except Exception as exc:  # noqa: BLE001 - every failure is reported
        summary["failed_step"] = step
        summary["error"] = f"{type(exc).__name__}: {exc}"
        summary["traceback"] = traceback.format_exc(limit=6)
    print(json.dumps(summary, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
