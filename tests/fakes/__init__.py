"""Fake network services shared by tests: OpenAI-compatible chat and Tavily search.

Import the servers directly (they are context managers)::

    from tests.fakes.openai_server import Behaviour, FakeOpenAIServer
    from tests.fakes.tavily_server import FakeTavilyServer, result

or the ready-made fixtures in ``tests.fakes.fixtures``.
"""
