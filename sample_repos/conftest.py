"""Keep pytest out of the sample histories: their tests belong to the sample repositories
(they import the samples' own packages), not to branchwise's test suite."""

collect_ignore_glob = ["*/steps/*"]
