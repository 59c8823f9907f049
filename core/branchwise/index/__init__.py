"""The write side: from commits to a searchable index, and keeping it fresh.

`run` (one index run: branches in order, then the static and transformer embedding stages),
`indexer.Indexer` (a branch's live set, inheritance, tombstones, garbage collection),
`parsing` (files into chunks, in worker processes), `embedstage` and `background` (dense
vectors, here or in a detached worker), `recipe` and `rechunk` (one-time migrations when the
embedding recipe or chunker changes), `grammar_upgrade`, `hooks` (git hooks that refresh the
index). It writes through `store/` and `backends/`; nothing on the read side imports it.
"""
