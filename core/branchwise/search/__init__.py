"""The read side's query path: from a question to a ranked list of one branch's live set.

`hybrid` (SearchRequest, HybridSearch: the channels over one live set, fused), `ranking_stage`
and `question_shape` (the ranking after fusion), `docrank`, `lexical_sparse`, `arguments` (the
one check of a search's filters), `pins` (pinned symbols first), `access` (who may read what),
`coverage` (how much of a branch the dense channel covers). It never reads git and never
verifies: results leave here as the index knows them, and `verify/` checks them.
"""
