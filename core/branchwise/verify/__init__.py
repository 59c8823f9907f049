"""Use-time truth: is a result still the code it claims to be, and how is it shown and cited.

`verifier.Verifier` (the verdict of each result against a work tree, a tip or a commit),
`views` (full text, outline or signature, each verified on its own), `citation` (the header a
verified chunk carries), `snippets` (`branchwise verify` of saved results), `live` (one live symbol as a result),
`container_text`, `symbols`, `outline`. It reads git and the models only: it does not know
how a result was found. Failed verifications are recorded in store/stale.py for the next index run.
"""
