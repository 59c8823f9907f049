"""The demo's question with the real default model: the review app shows the history honestly.

On `shop` main with all history, "make order cancellation idempotent" shows the deleted
`CancelOrderHandler` (history: a reference for the idempotency design) next to the current
`OrderService.cancel_order`; switching the scope to this branch (key `a`) drops the history.
"""

from __future__ import annotations

import pytest
from pilot_helpers import run_async, settle

from branchwise.models import Verdict
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app

QUERY = "make order cancellation idempotent"


@pytest.mark.model
@run_async
async def test_demo_query_with_the_real_model(shop_repo, tmp_path, monkeypatch):
    monkeypatch.delenv("BRANCHWISE_MODEL", raising=False)
    index_dir = tmp_path / "index"
    Workspace(shop_repo, index_dir).index([], all_branches=True)
    app = create_app(Workspace(shop_repo, index_dir), branch="main", query=QUERY, scope="all")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        history = {r.identity.qualified_name: r.verdict for r in app.session.results}
        await pilot.press("a")
        await settle(pilot)
        branch = {r.identity.qualified_name: r.verdict for r in app.session.results}
    assert history.get("CancelOrderHandler") is Verdict.DELETED, history
    assert history.get("OrderService.cancel_order") is Verdict.CURRENT, history
    assert branch.get("OrderService.cancel_order") is Verdict.CURRENT, branch
    assert not any(name.startswith("CancelOrderHandler") for name in branch), branch
