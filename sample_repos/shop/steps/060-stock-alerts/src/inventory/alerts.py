"""Low-stock alerts: tell purchasing before a best seller runs out."""

from __future__ import annotations

from dataclasses import dataclass

from inventory.stock import StockLedger

DEFAULT_THRESHOLD = 5


@dataclass(frozen=True)
class LowStockAlert:
    sku: str
    available: int
    threshold: int

    def message(self) -> str:
        return f"{self.sku}: {self.available} left (alert below {self.threshold})"


def check_low_stock(
    ledger: StockLedger, thresholds: dict[str, int] | None = None
) -> list[LowStockAlert]:
    """One alert per SKU whose available stock is below its threshold."""
    thresholds = thresholds or {}
    alerts = []
    for sku, available in ledger.levels().items():
        threshold = thresholds.get(sku, DEFAULT_THRESHOLD)
        if available < threshold:
            alerts.append(LowStockAlert(sku, available, threshold))
    return alerts
