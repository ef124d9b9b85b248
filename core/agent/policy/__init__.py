"""The policy after each step: the rule (``rule``), the learned policy (``learned``) and
the features both read (``features``)."""
