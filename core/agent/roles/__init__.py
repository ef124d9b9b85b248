"""The agent's roles: one module per role (its prompt, output schema and offline rule)
and the helpers they share."""
