"""Where an interrupted import stopped: a small JSON file in the data directory.

Written after each committed batch, removed when the import completes.  The
writes are idempotent, so a checkpoint only saves time: losing it (or a kill
between a commit and the checkpoint) means redoing batches, never a wrong
result.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..db.database import redact


class Checkpoint:
    def __init__(self, data_dir: Path, kind: str, source: str) -> None:
        digest = hashlib.sha256(f"{kind} {redact(source)}".encode()).hexdigest()[:12]
        self.path = Path(data_dir) / f"import-{kind}-{digest}.json"
        self.source = redact(source)

    def load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("source") == self.source else {}

    def save(self, **state: Any) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"source": self.source, **state}), encoding="utf-8")
        os.replace(temporary, self.path)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
