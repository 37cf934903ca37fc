"""An accessibility check: axe-core (tests/support/vendor/axe-core) run inside the page.

The script is evaluated through the DevTools protocol, not added as a <script> element, so a
page's Content-Security-Policy without inline scripts neither blocks it nor has to be relaxed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
IMPACTS = ("minor", "moderate", "serious", "critical")
BLOCKING = ("serious", "critical")


@cache
def _source() -> str:
    return AXE.read_text()


@dataclass
class AxeReport:
    url: str
    violations: list[dict[str, Any]]  # axe's own objects: id, impact, help, nodes, ...

    def counts(self) -> dict[str, int]:
        """Violated rules per impact (every impact listed, zeros included)."""
        found = Counter(v["impact"] for v in self.violations)
        return {impact: found[impact] for impact in IMPACTS}

    def at(self, *impacts: str) -> list[dict[str, Any]]:
        return [v for v in self.violations if v["impact"] in impacts]

    def summary(self) -> str:
        """One line of counts, then one line per violated rule with its elements."""
        counts = ", ".join(f"{k} {v}" for k, v in self.counts().items())
        lines = [f"axe {self.url}: {counts}"]
        for v in self.violations:
            targets = [" ".join(map(str, node["target"])) for node in v["nodes"]]
            lines.append(f"  [{v['impact']}] {v['id']}: {v['help']} ({', '.join(targets)})")
        return "\n".join(lines)


def run_axe(page: Page) -> AxeReport:
    """axe-core's violations on the page as it is now, with axe's default rules."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate("() => {\n" + _source() + "\n}")
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    return AxeReport(url=page.url, violations=violations)


def assert_accessible(page: Page) -> AxeReport:
    """Print the counts per impact and fail on any serious or critical violation."""
    report = run_axe(page)
    print(report.summary())
    blocking = report.at(*BLOCKING)
    assert not blocking, "serious or critical accessibility violations:\n" + report.summary()
    return report
