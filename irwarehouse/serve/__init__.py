"""`irw serve`: a live analyst workspace over a warehouse (docs/serve.md)."""
