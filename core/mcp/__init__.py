"""The analyst's filings as tools for any MCP client (``python -m core mcp``).

A Model Context Protocol server over the corpus, built on the official SDK's ``MCPServer``.
Every tool calls the application layer the dashboard and the CLI call (``core.app``,
``core.reading``, ``core.figures``, ``core.analysis``); nothing here looks up or combines a
figure by itself.

* ``service``: what the tools share: settings, the registry (no model needed), the corpus
  and the research service opened on first use;
* ``names``: a company, metric, period or form given by a client, resolved exactly, or a
  tool error naming what is loaded;
* ``errors``: tool errors a model can act on, and the guard that keeps tracebacks out;
* ``citations`` / ``models``: the typed outputs, each citation with its Library link;
* ``figure_out``: figures, analyses and readings as a client receives them;
* ``tools_corpus``, ``tools_figures``, ``tools_agent``, ``tools_write``: the tool bodies;
* ``resources``: a chunk, a run's record and its Markdown export;
* ``server``: the server with its tools and resources registered;
* ``auth`` / ``http``: the bearer token and streamable HTTP on a bound socket.
"""
