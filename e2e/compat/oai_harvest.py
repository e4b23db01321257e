"""Harvest an OAI-PMH endpoint with sickle (a real harvester, unmodified) and print a JSON summary.

Usage: python oai_harvest.py <base url of /oai2d> [metadataPrefix]

ListRecords over every page (sickle follows the resumption tokens), deleted records included;
prints {"ok", "records", "deleted", "identifiers": [...], "pages", "seconds"} on one line.
Used by services/records/test/integration/oai-harvest.test.ts.
"""
import json
import sys
import time

from sickle import Sickle
from sickle.oaiexceptions import NoRecordsMatch


def main():
    url = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else "oai_dc"
    pages = []

    class CountingSickle(Sickle):
        def harvest(self, **kwargs):
            pages.append(kwargs.get("resumptionToken", "first"))
            return super().harvest(**kwargs)

    started = time.time()
    client = CountingSickle(url, max_retries=3, timeout=60)
    identifiers = []
    deleted = 0
    try:
        for record in client.ListRecords(metadataPrefix=prefix, ignore_deleted=False):
            identifiers.append(record.header.identifier)
            if record.header.deleted:
                deleted += 1
            elif not record.metadata.get("title"):
                raise SystemExit(json.dumps({"ok": False, "error": "record without dc:title", "identifier": record.header.identifier}))
    except NoRecordsMatch:
        pass
    print(json.dumps({
        "ok": True,
        "records": len(identifiers),
        "deleted": deleted,
        "identifiers": identifiers,
        "pages": len(pages),
        "seconds": round(time.time() - started, 2),
    }))


if __name__ == "__main__":
    main()
