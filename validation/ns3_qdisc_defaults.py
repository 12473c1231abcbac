"""Record ns-3's attribute defaults of the AQM queue discs Sluice's `ns3.44` profile follows.

Reads each TypeId's attributes (name and initial value, as ns-3 serializes them) from the
installed ns-3 and writes them as JSON; tests/integration/reference.rs checks the profile's
CoDel and FQ-CoDel defaults against the record.

    python validation/ns3_qdisc_defaults.py --out validation/fixtures/ns3/qdisc-defaults.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

TYPES = ["ns3::CoDelQueueDisc", "ns3::FqCoDelQueueDisc", "ns3::PointToPointNetDevice"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from ns import ns  # slow import (about 20 s)

    from importlib.metadata import version

    record: dict[str, object] = {"ns3": f"ns3 {version('ns3')} (PyPI)"}
    for name in TYPES:
        tid = ns.TypeId.LookupByName(name)
        attrs = {}
        for i in range(tid.GetAttributeN()):
            info = tid.GetAttribute(i)
            attrs[str(info.name)] = str(info.initialValue.SerializeToString(info.checker))
        record[name] = attrs
    args.out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
