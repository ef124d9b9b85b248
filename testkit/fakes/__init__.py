"""Fake network services shared by tests: OpenAI-compatible chat and Tavily search.

Import the servers directly (they are context managers)::

    from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
    from testkit.fakes.tavily_server import FakeTavilyServer, result

or the ready-made fixtures in ``testkit.fakes.fixtures``.
"""
