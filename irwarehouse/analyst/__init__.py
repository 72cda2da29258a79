"""The analyst's side of the warehouse: guarded SQL, views, exports, bulk ingest, reports."""
