"""Foundation: settings, errors, the records that flow through the product, safety of
untrusted text, the persistent cache, model loading and the catalogue of retrieval
strategies. Imports nothing else of core."""
