"""`branchwise mcp`: the index served to coding agents over the Model Context Protocol.

An agent that shells out to `branchwise search` pays for loading the model on every call and
gets raw results. This server loads the model once, keeps it warm, and answers with what a
reviewer would want the agent to see: verified results with citation headers, reviewer labels
applied, the user's access limits applied before ranking, and how fresh the index is.

`service.py` holds the tools' logic over Workspace objects (plain data in, plain data out),
`server.py` registers them with the MCP SDK and runs stdio, `refresh.py` re-indexes a branch
in the background when its tip moves (`--refresh`).
"""
