"""The reviewer's outputs: what a person decides about results, and what leaves the tool.

`desk.Review` (the workspace's review jobs: labels, pins, bundles, statistics), `labels` and
`labelfile` (decisions kept per version), `bundle/` (the exported context bundle),
`stats`, `usage` and `status` (the failure-statistics log, usage memory, index status),
`advice`, `tours/` (guided tours and their checks), `branchdiff`, `diffsummary`, `impact`,
`callers`, `references`, `diffbundle`, `reviewbundle` (a branch diff under review),
`outfiles` (never over an existing file). It stands on search/ and verify/.
"""
