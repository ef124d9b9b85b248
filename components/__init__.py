"""Streamlit renderers: take records and events from core/, draw them. No business logic.

``keys`` holds the session-state key constants, ``services`` the cached services
(the only module here that builds things); every other module is a pure renderer.
"""
