"""What the tests cut under the sanitizer build (TG_SANITIZED=1, set by scripts/test.sh for its
ASan+UBSan run). That binary runs 3-10 times slower, so a test that repeats one code path on several
graphs runs it on the first graph only there: the sanitizers look for memory and undefined-
behaviour errors in code paths, and the release run checks every graph's answer."""

from __future__ import annotations

import os

SANITIZED = bool(os.environ.get("TG_SANITIZED"))


def first_under_sanitizers(values: list) -> list:
    """The values a parametrized test runs on: all of them, or only the first under the sanitizers."""
    return values[:1] if SANITIZED else values
